/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * The selection rules' parser and lookup (coll_hiercoll_rules.c): good
 * files give the rules they say, every kind of bad file one clear reason
 * and no rules, and lookups pick the covering rule.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_hiercoll_rules.h"

static const char *const colls[] = {"allreduce", "barrier", "bcast", "reduce", NULL};
static const char *const allreduce_algos[] = {"recursive_doubling", "rhrd", "rabenseifner", NULL};
static const char *const barrier_algos[] = {"linear", "dissemination", NULL};
static const char *const bcast_algos[] = {"linear", "binomial", NULL};
static const char *const reduce_algos[] = {"linear", "binomial", "rhrd", NULL};
static const char *const *const algos[] = {allreduce_algos, barrier_algos, bcast_algos,
                                           reduce_algos};
static const hcp_rules_names_t names = {.ncoll = 4, .coll = colls, .algos = algos};

#define GOOD                                                                                       \
    "hiercoll-rules 1\n"                                                                           \
    "# comment\n"                                                                                  \
    "\n"                                                                                           \
    "allreduce np=2-8 bytes=0-65535 fallback   # trailing comment\n"                               \
    "allreduce np=2-8 bytes=64K- rhrd\n"                                                           \
    "allreduce np=9- bytes=* recursive_doubling\n"                                                 \
    "\tbcast np=* bytes=0-1k fallback:tuned\n"                                                     \
    "bcast np=4 bytes=1025-1M binomial\n"                                                          \
    "reduce np=2-3 bytes=8 auto\n"                                                                 \
    "end\n"

START_TEST(parses_a_good_file)
{
    hcp_rules_t r;
    char why[256] = "";
    ck_assert_msg(0 == hcp_rules_parse(GOOD, &names, "t", &r, why, sizeof(why)), "%s", why);
    ck_assert_int_eq(r.n, 6);
    ck_assert_int_eq(r.rule[0].coll, 0);
    ck_assert_int_eq(r.rule[0].algo, HCP_RULE_FALLBACK);
    ck_assert_int_eq(r.rule[0].np_lo, 2);
    ck_assert_int_eq(r.rule[0].np_hi, 8);
    ck_assert(r.rule[0].b_lo == 0 && r.rule[0].b_hi == 65535);
    ck_assert_int_eq(r.rule[0].line, 4);
    ck_assert(r.rule[1].b_lo == 65536 && r.rule[1].b_hi == UINT64_MAX);
    ck_assert_int_eq(r.rule[1].algo, 1);
    ck_assert_int_eq(r.rule[2].np_lo, 9);
    ck_assert_int_eq(r.rule[2].np_hi, 1 << 30);
    ck_assert_int_eq(r.rule[3].np_lo, 1);
    ck_assert_str_eq(r.rule[3].below, "tuned");
    ck_assert(r.rule[3].b_hi == 1024);
    ck_assert(r.rule[4].b_lo == 1025 && r.rule[4].b_hi == 1 << 20);
    ck_assert_int_eq(r.rule[4].np_lo, 4);
    ck_assert_int_eq(r.rule[4].np_hi, 4);
    ck_assert_int_eq(r.rule[5].algo, HCP_RULE_AUTO);
    ck_assert(r.rule[5].b_lo == 8 && r.rule[5].b_hi == 8);
    hcp_rules_fini(&r);
}
END_TEST

/* Every bad text: -1, no rules left, and the reason names what is wrong. */
static const struct {
    const char *text, *reason;
} bad[] = {
    {"", "empty"},
    {"# only a comment\n\n", "empty"},
    {"\x7f"
     "ELF\x02\x01\x01",
     "not text"},
    {"garbage\n", "line 1: want the header"},
    {"hiercoll-rules 2\nend\n", "line 1: want the header"},
    {"hiercoll-rules 1\nbcast np=2 bytes=0- binomial\n", "truncated"},
    {"hiercoll-rules 1\nbcast np=2 bytes=0- binomial\nbcast np=3 byt", "line 3: want"},
    {"hiercoll-rules 1\nbcast np=2-8 bytes=0-6", "line 2: want"},
    {"hiercoll-rules 1\nscatter np=2 bytes=* linear\nend\n",
     "line 2: unknown collective \"scatter\""},
    {"hiercoll-rules 1\nbcast np=2 bytes=* tree\nend\n",
     "line 2: unknown algorithm \"tree\" of bcast"},
    {"hiercoll-rules 1\nbcast np=2 bytes=* rhrd\nend\n", "unknown algorithm \"rhrd\" of bcast"},
    {"hiercoll-rules 1\nbcast np=2-8 bytes=0-100 linear\nbcast np=8-9 bytes=100-200 "
     "fallback\nend\n",
     "line 3: overlaps line 2 (bcast)"},
    {"hiercoll-rules 1\nbcast np=* bytes=* linear\nbcast np=4 bytes=8 binomial\nend\n",
     "line 3: overlaps line 2"},
    {"hiercoll-rules 1\nbcast np=8-2 bytes=* linear\nend\n", "line 2: bad process range"},
    {"hiercoll-rules 1\nbcast np=0 bytes=* linear\nend\n", "line 2: bad process range"},
    {"hiercoll-rules 1\nbcast np=-2 bytes=* linear\nend\n", "line 2: bad process range"},
    {"hiercoll-rules 1\nbcast np=2 bytes=-5 linear\nend\n", "line 2: bad size range"},
    {"hiercoll-rules 1\nbcast np=2 bytes=99999999999999999999 linear\nend\n", "bad size range"},
    {"hiercoll-rules 1\nbcast np=2 bytes=1x linear\nend\n", "bad size range"},
    {"hiercoll-rules 1\nbcast np=2 bytes=16777216T linear\nend\n", "bad size range"},
    {"hiercoll-rules 1\nbcast bytes=* np=2 linear\nend\n", "bad process range"},
    {"hiercoll-rules 1\nbcast np=2 bytes=* linear extra\nend\n", "found 5 words"},
    {"hiercoll-rules 1\nbcast np=2 bytes=* fallback:\nend\n", "bad component name"},
    {"hiercoll-rules 1\nbcast np=2 bytes=* fallback:a/b\nend\n", "bad component name"},
    {"hiercoll-rules 1\nend\nbcast np=2 bytes=* linear\n", "line 3: text after \"end\""},
};

START_TEST(rejects_bad_files)
{
    hcp_rules_t r;
    char why[256];
    int i = _i;
    why[0] = '\0';
    ck_assert_msg(-1 == hcp_rules_parse(bad[i].text, &names, "t", &r, why, sizeof(why)),
                  "bad text %d was accepted", i);
    ck_assert_int_eq(r.n, 0);
    ck_assert_ptr_null(r.rule);
    ck_assert_msg(NULL != strstr(why, bad[i].reason), "text %d: \"%s\" does not say \"%s\"", i, why,
                  bad[i].reason);
    ck_assert_msg(NULL == strchr(why, '\n'), "text %d: more than one line", i);
}
END_TEST

START_TEST(long_line_and_many_rules)
{
    hcp_rules_t r;
    char why[256];
    size_t n = 700;
    char *text = malloc(n + 64);
    strcpy(text, "hiercoll-rules 1\n#");
    memset(text + strlen(text), 'x', n);
    strcpy(text + 18 + n, "\nend\n");
    ck_assert_int_eq(-1, hcp_rules_parse(text, &names, "t", &r, why, sizeof(why)));
    ck_assert_msg(NULL != strstr(why, "line 2: longer than"), "%s", why);
    free(text);
    /* 5000 non-overlapping rules: more than the parser keeps */
    text = malloc(5000 * 48 + 64);
    size_t w = (size_t) sprintf(text, "hiercoll-rules 1\n");
    for (int i = 0; i < 5000; ++i) {
        w += (size_t) sprintf(text + w, "bcast np=%d bytes=* binomial\n", i + 1);
    }
    strcpy(text + w, "end\n");
    ck_assert_int_eq(-1, hcp_rules_parse(text, &names, "t", &r, why, sizeof(why)));
    ck_assert_msg(NULL != strstr(why, "more than"), "%s", why);
    free(text);
}
END_TEST

START_TEST(loads_files)
{
    char path[] = "/tmp/check_rules_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq((int) strlen(GOOD), (int) write(fd, GOOD, strlen(GOOD)));
    close(fd);
    hcp_rules_t r;
    char why[256] = "";
    ck_assert_msg(0 == hcp_rules_load(path, &names, &r, why, sizeof(why)), "%s", why);
    ck_assert_int_eq(r.n, 6);
    ck_assert_str_eq(r.source, path);
    hcp_rules_fini(&r);
    /* a NUL byte inside */
    FILE *f = fopen(path, "w");
    fwrite("hiercoll-rules 1\n\0end\n", 1, 22, f);
    fclose(f);
    ck_assert_int_eq(-1, hcp_rules_load(path, &names, &r, why, sizeof(why)));
    ck_assert_msg(NULL != strstr(why, "not text"), "%s", why);
    unlink(path);
    ck_assert_int_eq(-1, hcp_rules_load(path, &names, &r, why, sizeof(why)));
    ck_assert_msg(NULL != strstr(why, "cannot open"), "%s", why);
    ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(lookup)
{
    hcp_rules_t r;
    char why[256] = "";
    ck_assert_msg(0 == hcp_rules_parse(GOOD, &names, "t", &r, why, sizeof(why)), "%s", why);
    hcp_rule_t got[8];
    /* allreduce at np 4: two rules, in order of bytes */
    int n = hcp_rules_for(&r, 0, 4, "tuned", got, 8);
    ck_assert_int_eq(n, 2);
    ck_assert(got[0].b_lo == 0 && got[1].b_lo == 65536);
    ck_assert_int_eq(hcp_rules_match(got, n, 0)->algo, HCP_RULE_FALLBACK);
    ck_assert_int_eq(hcp_rules_match(got, n, 65535)->algo, HCP_RULE_FALLBACK);
    ck_assert_int_eq(hcp_rules_match(got, n, 65536)->algo, 1);
    ck_assert_int_eq(hcp_rules_match(got, n, UINT64_MAX)->algo, 1);
    ck_assert(!hcp_rules_always(got, n, HCP_RULE_FALLBACK));
    /* np 1: none */
    ck_assert_int_eq(hcp_rules_for(&r, 0, 1, "tuned", got, 8), 0);
    ck_assert_ptr_null(hcp_rules_match(got, 0, 5));
    /* bcast: "fallback:tuned" only where tuned is below */
    n = hcp_rules_for(&r, 2, 4, "tuned", got, 8);
    ck_assert_int_eq(n, 2);
    ck_assert_int_eq(hcp_rules_match(got, n, 1024)->algo, HCP_RULE_FALLBACK);
    ck_assert_int_eq(hcp_rules_match(got, n, 1025)->algo, 1);
    ck_assert_ptr_null(hcp_rules_match(got, n, (1 << 20) + 1));
    n = hcp_rules_for(&r, 2, 4, "basic", got, 8);
    ck_assert_int_eq(n, 1);
    ck_assert_ptr_null(hcp_rules_match(got, n, 100));
    n = hcp_rules_for(&r, 2, 4, NULL, got, 8);
    ck_assert_int_eq(n, 1);
    /* max keeps the copy in bounds */
    ck_assert_int_eq(hcp_rules_for(&r, 0, 4, "tuned", got, 1), 1);
    /* always: only a cover of every size by one action */
    ck_assert_msg(0
                      == hcp_rules_parse("hiercoll-rules 1\nbarrier np=* bytes=0-9 fallback\n"
                                         "barrier np=* bytes=10- fallback\nend\n",
                                         &names, "t", &r, why, sizeof(why)),
                  "%s", why);
    n = hcp_rules_for(&r, 1, 2, "tuned", got, 8);
    ck_assert(hcp_rules_always(got, n, HCP_RULE_FALLBACK));
    ck_assert(!hcp_rules_always(got, n, 1));
    ck_assert(!hcp_rules_always(got, 1, HCP_RULE_FALLBACK));
    char buf[64];
    hcp_rule_ranges(&got[1], buf, sizeof(buf));
    ck_assert_str_eq(buf, "np=1- bytes=10-");
    hcp_rules_fini(&r);
}
END_TEST

/* The built-in rules are a good rules text of the real names. */
START_TEST(builtin_parses)
{
    static const char *const all[] = {"allgather",
                                      "allgatherv",
                                      "allreduce",
                                      "alltoall",
                                      "alltoallv",
                                      "alltoallw",
                                      "barrier",
                                      "bcast",
                                      "exscan",
                                      "gather",
                                      "gatherv",
                                      "reduce",
                                      "reduce_scatter_block",
                                      "reduce_scatter",
                                      "scan",
                                      "scatter",
                                      "scatterv",
                                      NULL};
    static const char *const none[] = {NULL};
    static const char *const ar[] = {"recursive_doubling", "rhrd", "rabenseifner", "decomp", NULL};
    static const char *const br[] = {"linear", "dissemination", "decomp", NULL};
    static const char *const bc[] = {"linear", "binomial", "decomp", NULL};
    static const char *const rd[] = {"linear", "binomial", "rhrd", "rabenseifner", "decomp", NULL};
    const char *const *al[17];
    for (int i = 0; i < 17; ++i) {
        al[i] = none;
    }
    al[2] = ar, al[6] = br, al[7] = bc, al[11] = rd;
    hcp_rules_names_t n = {.ncoll = 17, .coll = all, .algos = al};
    hcp_rules_t r;
    char why[256] = "";
    ck_assert_msg(0 == hcp_rules_parse(hcp_rules_builtin, &n, "built-in", &r, why, sizeof(why)),
                  "%s", why);
    ck_assert_int_gt(r.n, 0);
    hcp_rules_fini(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("rules");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, parses_a_good_file);
    tcase_add_loop_test(tc, rejects_bad_files, 0, (int) (sizeof(bad) / sizeof(bad[0])));
    tcase_add_test(tc, long_line_and_many_rules);
    tcase_add_test(tc, loads_files);
    tcase_add_test(tc, lookup);
    tcase_add_test(tc, builtin_parses);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
