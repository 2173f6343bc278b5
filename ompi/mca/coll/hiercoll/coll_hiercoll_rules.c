/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * Selection rules: parser and lookup (MPI-free; see coll_hiercoll_rules.h
 * and docs/tuning.md, "Rules file format").
 */
#include "coll_hiercoll_rules.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILE (1024 * 1024)
#define MAX_RULES 4096
#define MAX_LINE 512

static void say(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
}

int hcp_parse_u64(const char *s, const char **end, uint64_t *v)
{
    if (!isdigit((unsigned char) *s)) {
        return -1;
    }
    errno = 0;
    char *e;
    unsigned long long x = strtoull(s, &e, 10);
    if (ERANGE == errno) {
        return -1;
    }
    int shift = 0;
    switch (*e) {
    case 'k':
    case 'K':
        shift = 10;
        break;
    case 'm':
    case 'M':
        shift = 20;
        break;
    case 'g':
    case 'G':
        shift = 30;
        break;
    default:
        break;
    }
    if (shift) {
        if (x > (UINT64_MAX >> shift)) {
            return -1;
        }
        x <<= shift;
        ++e;
    }
    *v = x;
    *end = e;
    return 0;
}

/* "*", "N", "N-M" or "N-" after "key=" (the whole word). */
static int range(const char *word, const char *key, uint64_t max, uint64_t *lo, uint64_t *hi)
{
    size_t kl = strlen(key);
    if (0 != strncmp(word, key, kl) || '=' != word[kl]) {
        return -1;
    }
    const char *s = word + kl + 1, *e;
    if (0 == strcmp(s, "*")) {
        *lo = 0;
        *hi = max;
        return 0;
    }
    if (0 != hcp_parse_u64(s, &e, lo)) {
        return -1;
    }
    if ('\0' == *e) {
        *hi = *lo;
    } else if ('-' == *e && '\0' == e[1]) {
        *hi = max;
    } else if ('-' != *e || 0 != hcp_parse_u64(e + 1, &e, hi) || '\0' != *e) {
        return -1;
    }
    return *lo <= *hi && *hi <= max ? 0 : -1;
}

static int lookup(const char *const *list, const char *name)
{
    for (int i = 0; NULL != list && NULL != list[i]; ++i) {
        if (0 == strcmp(list[i], name)) {
            return i;
        }
    }
    return -1;
}

static int overlap(const hcp_rule_t *a, const hcp_rule_t *b)
{
    return a->coll == b->coll && a->np_lo <= b->np_hi && b->np_lo <= a->np_hi && a->b_lo <= b->b_hi
           && b->b_lo <= a->b_hi;
}

/* One rule line split into words; returns 0 or -1 with why set. */
static int rule_line(char **w, int nw, int line, const hcp_rules_names_t *names, hcp_rule_t *r,
                     char *why, size_t len)
{
    uint64_t lo, hi;
    if (4 != nw) {
        say(why, len,
            "line %d: want \"<collective> np=<range> bytes=<range> <algorithm>\", "
            "found %d words",
            line, nw);
        return -1;
    }
    r->line = line;
    r->coll = lookup(names->coll, w[0]);
    if (r->coll < 0 || r->coll >= names->ncoll) {
        say(why, len, "line %d: unknown collective \"%s\"", line, w[0]);
        return -1;
    }
    if (0 != range(w[1], "np", 1u << 30, &lo, &hi) || 0 == hi) {
        say(why, len, "line %d: bad process range \"%s\" (want np=*, np=N, np=N-M or np=N-)", line,
            w[1]);
        return -1;
    }
    r->np_lo = (int) (lo ? lo : 1);
    r->np_hi = (int) hi;
    if (0 != range(w[2], "bytes", UINT64_MAX, &r->b_lo, &r->b_hi)) {
        say(why, len,
            "line %d: bad size range \"%s\" (want bytes=*, bytes=N, bytes=N-M or bytes=N-; "
            "K, M, G suffixes)",
            line, w[2]);
        return -1;
    }
    r->below[0] = '\0';
    if (0 == strcmp(w[3], "fallback")) {
        r->algo = HCP_RULE_FALLBACK;
    } else if (0 == strncmp(w[3], "fallback:", 9)) {
        const char *comp = w[3] + 9;
        size_t cl = strlen(comp);
        if (0 == cl || cl >= sizeof(r->below)
            || strspn(comp, "abcdefghijklmnopqrstuvwxyz"
                            "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                            "0123456789_")
                   != cl) {
            say(why, len, "line %d: bad component name in \"%s\"", line, w[3]);
            return -1;
        }
        memcpy(r->below, comp, cl + 1);
        r->algo = HCP_RULE_FALLBACK;
    } else if (0 == strcmp(w[3], "auto")) {
        r->algo = HCP_RULE_AUTO;
    } else if ((r->algo = lookup(names->algos[r->coll], w[3])) < 0) {
        say(why, len, "line %d: unknown algorithm \"%s\" of %s", line, w[3], w[0]);
        return -1;
    }
    return 0;
}

int hcp_rules_parse(const char *text, const hcp_rules_names_t *names, const char *source,
                    hcp_rules_t *out, char *why, size_t len)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->source, sizeof(out->source), "%s", source);
    int header = 0, end = 0, line = 0, cap = 0;
    const char *p = text;
    while ('\0' != *p) {
        const char *nl = strchr(p, '\n');
        size_t n = NULL != nl ? (size_t) (nl - p) : strlen(p);
        char buf[MAX_LINE], *w[8];
        ++line;
        if (n >= sizeof(buf)) {
            say(why, len, "line %d: longer than %d characters", line, MAX_LINE - 1);
            goto fail;
        }
        memcpy(buf, p, n);
        buf[n] = '\0';
        p += n + (NULL != nl);
        for (size_t i = 0; i < n; ++i) {
            if (!isprint((unsigned char) buf[i]) && !isspace((unsigned char) buf[i])) {
                say(why, len, "line %d: not text (byte 0x%02x)", line, (unsigned char) buf[i]);
                goto fail;
            }
        }
        char *hash = strchr(buf, '#');
        if (NULL != hash) {
            *hash = '\0';
        }
        int nw = 0;
        char *save = NULL;
        for (char *t = strtok_r(buf, " \t\r\f\v", &save); NULL != t;
             t = strtok_r(NULL, " \t\r\f\v", &save)) {
            w[nw < 8 ? nw : 7] = t;
            ++nw;
        }
        if (0 == nw) {
            continue;
        }
        if (end) {
            say(why, len, "line %d: text after \"end\"", line);
            goto fail;
        }
        if (!header) {
            if (2 != nw || 0 != strcmp(w[0], "hiercoll-rules") || 0 != strcmp(w[1], "1")) {
                say(why, len, "line %d: want the header \"hiercoll-rules 1\"", line);
                goto fail;
            }
            header = 1;
            continue;
        }
        if (1 == nw && 0 == strcmp(w[0], "end")) {
            end = 1;
            continue;
        }
        if (out->n == MAX_RULES) {
            say(why, len, "line %d: more than %d rules", line, MAX_RULES);
            goto fail;
        }
        if (out->n == cap) {
            cap = cap ? 2 * cap : 32;
            hcp_rule_t *grown = realloc(out->rule, sizeof(*grown) * (size_t) cap);
            if (NULL == grown) {
                say(why, len, "out of memory");
                goto fail;
            }
            out->rule = grown;
        }
        hcp_rule_t *r = &out->rule[out->n];
        if (0 != rule_line(w, nw, line, names, r, why, len)) {
            goto fail;
        }
        for (int i = 0; i < out->n; ++i) {
            if (overlap(&out->rule[i], r)) {
                say(why, len, "line %d: overlaps line %d (%s)", line, out->rule[i].line,
                    names->coll[r->coll]);
                goto fail;
            }
        }
        out->n++;
    }
    if (!header) {
        say(why, len, "empty (no \"hiercoll-rules 1\" header)");
        goto fail;
    }
    if (!end) {
        say(why, len, "truncated: no \"end\" line after line %d", line);
        goto fail;
    }
    out->by_coll = malloc(sizeof(int) * (size_t) (out->n > 0 ? out->n : 1));
    out->first = malloc(sizeof(int) * (size_t) (names->ncoll + 1));
    if (NULL == out->by_coll || NULL == out->first) {
        say(why, len, "out of memory");
        goto fail;
    }
    out->ncoll = names->ncoll;
    int at = 0;
    for (int c = 0; c < names->ncoll; ++c) {
        out->first[c] = at;
        for (int i = 0; i < out->n; ++i) {
            if (out->rule[i].coll == c) {
                out->by_coll[at++] = i;
            }
        }
    }
    out->first[names->ncoll] = at;
    return 0;
fail:
    hcp_rules_fini(out);
    return -1;
}

int hcp_rules_load(const char *path, const hcp_rules_names_t *names, hcp_rules_t *out, char *why,
                   size_t len)
{
    memset(out, 0, sizeof(*out));
    FILE *f = fopen(path, "r");
    if (NULL == f) {
        say(why, len, "cannot open it: %s", strerror(errno));
        return -1;
    }
    char *text = malloc(MAX_FILE + 1);
    size_t n = NULL != text ? fread(text, 1, MAX_FILE + 1, f) : 0;
    int bad = NULL == text || ferror(f) || n > MAX_FILE;
    fclose(f);
    if (bad) {
        say(why, len, NULL == text ? "out of memory" : "unreadable or larger than %d bytes",
            MAX_FILE);
        free(text);
        return -1;
    }
    text[n] = '\0';
    if (strlen(text) != n) {
        say(why, len, "not text (a NUL byte at offset %zu)", strlen(text));
        free(text);
        return -1;
    }
    int rc = hcp_rules_parse(text, names, path, out, why, len);
    free(text);
    return rc;
}

void hcp_rules_fini(hcp_rules_t *r)
{
    free(r->rule);
    free(r->by_coll);
    free(r->first);
    r->rule = NULL;
    r->by_coll = r->first = NULL;
    r->n = r->ncoll = 0;
}

int hcp_rules_for(const hcp_rules_t *r, int coll, int np, const char *below, hcp_rule_t *out,
                  int max)
{
    int n = 0;
    if (NULL == r->first || coll < 0 || coll >= r->ncoll) {
        return 0; /* (no rules loaded, or a collective they cannot name) */
    }
    for (int i = r->first[coll]; i < r->first[coll + 1] && n < max; ++i) {
        const hcp_rule_t *x = &r->rule[r->by_coll[i]];
        if (np < x->np_lo || np > x->np_hi) {
            continue;
        }
        if ('\0' != x->below[0] && (NULL == below || 0 != strcmp(below, x->below))) {
            continue;
        }
        int j = n++; /* insertion by b_lo (the ranges do not overlap) */
        while (j > 0 && out[j - 1].b_lo > x->b_lo) {
            out[j] = out[j - 1];
            --j;
        }
        out[j] = *x;
    }
    return n;
}

const hcp_rule_t *hcp_rules_match(const hcp_rule_t *rules, int n, uint64_t bytes)
{
    for (int i = 0; i < n; ++i) {
        if (bytes >= rules[i].b_lo && bytes <= rules[i].b_hi) {
            return &rules[i];
        }
    }
    return NULL;
}

int hcp_rules_always(const hcp_rule_t *rules, int n, int algo)
{
    uint64_t next = 0; /* every size below is covered */
    for (int i = 0; i < n; ++i) {
        if (rules[i].algo != algo || rules[i].b_lo != next) {
            return 0;
        }
        if (UINT64_MAX == rules[i].b_hi) {
            return 1;
        }
        next = rules[i].b_hi + 1;
    }
    return 0;
}

void hcp_rule_ranges(const hcp_rule_t *r, char *buf, size_t len)
{
    char np[32], b[48];
    if (r->np_hi == 1 << 30) {
        snprintf(np, sizeof(np), "%d-", r->np_lo);
    } else {
        snprintf(np, sizeof(np), "%d-%d", r->np_lo, r->np_hi);
    }
    if (UINT64_MAX == r->b_hi) {
        snprintf(b, sizeof(b), "%llu-", (unsigned long long) r->b_lo);
    } else {
        snprintf(b, sizeof(b), "%llu-%llu", (unsigned long long) r->b_lo,
                 (unsigned long long) r->b_hi);
    }
    snprintf(buf, len, "np=%s bytes=%s", np, b);
}
