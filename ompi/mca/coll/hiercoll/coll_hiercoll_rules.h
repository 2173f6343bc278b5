/*
 * Copyright (c) 2026 The hiercoll authors.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 *
 * hiercoll: selection rules (MPI-free).  A rules file says, per
 * collective, communicator size and message size, which of hiercoll's
 * algorithms runs a blocking call, or that the layer below
 * does ("fallback").  Format (docs/tuning.md, "Rules file format"):
 *
 *   hiercoll-rules 1
 *   # comment
 *   <collective> np=<range> bytes=<range> <algorithm|fallback|fallback:COMP|auto>
 *   end
 *
 * A range is "*", "N", "N-M" or "N-" (N and more); numbers take K, M, G
 * (binary) suffixes.  "fallback:COMP" passes on only where the component
 * below is COMP (the one measured against); elsewhere the rule is ignored.
 * Rules of one collective must not overlap.  A call no rule covers takes
 * "auto" (hiercoll's own policy, its parameters).
 */
#ifndef MCA_COLL_HIERCOLL_RULES_H
#define MCA_COLL_HIERCOLL_RULES_H

#include <stddef.h>
#include <stdint.h>

/* Algorithm values besides a collective's algorithm index (the same
 * values as HC_ALGO_AUTO and HC_ALGO_FALLBACK). */
#define HCP_RULE_AUTO (-1)
#define HCP_RULE_FALLBACK (-2)

typedef struct hcp_rule {
    int coll; /* index into the collective names */
    int algo; /* algorithm index, HCP_RULE_AUTO or HCP_RULE_FALLBACK */
    int np_lo, np_hi;
    uint64_t b_lo, b_hi;
    int line;       /* in the text it came from (verbose output) */
    char below[24]; /* "fallback:NAME": only when component NAME is below */
} hcp_rule_t;

typedef struct hcp_rules {
    hcp_rule_t *rule; /* in the text's order */
    int n;
    char source[256]; /* "built-in" or the file's name */
    /* collective c's rules are rule[by_coll[first[c]]] .. rule[by_coll[
     * first[c + 1] - 1]] (text order), c < ncoll (hcp_rules_for: every
     * communicator asks for each collective's; NULL: no rules loaded) */
    int *by_coll, *first, ncoll;
} hcp_rules_t;

/* What the parser checks names against: ncoll collectives, and for
 * each the NULL-terminated list of its algorithm names. */
typedef struct hcp_rules_names {
    int ncoll;
    const char *const *coll;
    const char *const *const *algos;
} hcp_rules_names_t;

/* Parse a whole rules text.  Returns 0 and fills *out (which the caller
 * frees with hcp_rules_fini), or -1 with one line of explanation in why
 * ("line 3: unknown algorithm \"foo\" of bcast") and *out empty. */
int hcp_rules_parse(const char *text, const hcp_rules_names_t *names, const char *source,
                    hcp_rules_t *out, char *why, size_t whylen);
/* Read and parse a file (at most 1 MiB); as hcp_rules_parse. */
int hcp_rules_load(const char *path, const hcp_rules_names_t *names, hcp_rules_t *out, char *why,
                   size_t whylen);
void hcp_rules_fini(hcp_rules_t *r);

/* The rules of collective coll that apply to communicators of np
 * processes whose component below is `below` (NULL: none), copied into
 * out[0..max) in order of bytes; returns how many (at most max).  A rule
 * "fallback:COMP" applies only where COMP is below: it was measured
 * against COMP. */
int hcp_rules_for(const hcp_rules_t *r, int coll, int np, const char *below, hcp_rule_t *out,
                  int max);
/* The rule among those (from hcp_rules_for) that covers `bytes`, or NULL. */
const hcp_rule_t *hcp_rules_match(const hcp_rule_t *rules, int n, uint64_t bytes);
/* Do those rules send every message size to `algo`? */
int hcp_rules_always(const hcp_rule_t *rules, int n, int algo);
/* "np=2-8 bytes=0-65535" of a rule, for messages. */
void hcp_rule_ranges(const hcp_rule_t *r, char *buf, size_t len);

/* A decimal number with an optional K, M or G (binary) suffix at s (a
 * digit first), ending at *end: 0, or -1 when there is none or it
 * overflows.  (Also the magnitude of numeric MCA parameters.) */
int hcp_parse_u64(const char *s, const char **end, uint64_t *v);

/* The rules measured on the project's machine (coll_hiercoll_rules.c). */
extern const char hcp_rules_builtin[];

#endif
