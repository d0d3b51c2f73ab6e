/* technique.h: how a stage's technique is judged, besides its outputs. */
#ifndef TECHNIQUE_H
#define TECHNIQUE_H
#include "workbook.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- techniques: a stage passes only when its kernel shows its idea -------
 * Right outputs are not enough: each stage after a lab's first declares the
 * facts its idea implies, as loosely as the idea allows, and the emulation
 * counts them on one run (common/emu/counts.cpp), GPU or not. A measure is a
 * figure of those counts (lab.c has the workbook's; a lab may add its
 * own); a trait bounds one. To choose bounds, WORKBOOK_FIGURES=1
 * build/emu/solutions/<lab>/run technique=all prints every measure of every
 * stage; a bound sits between the stage's figure and its lazy mutants'
 * (tests/mutants), with room on both sides. */
typedef double measure(const struct problem *p, const struct access_counts *c);
enum bound { AT_LEAST, AT_MOST };
struct trait {
    measure *of;         /* NULL ends a technique's traits */
    enum bound bound;
    double limit;
    const char *missing; /* said when it fails, in the handout's words:
                            "no shared-memory atomics" */
};
enum { MAX_TRAITS = 6 };
struct technique {
    const char *id;      /* the stage's (its row in the stage table says the idea) */
    struct trait traits[MAX_TRAITS]; /* all must hold; none: any kernel passes */
};
/* Where a stage's technique is counted when not at its lab's technique
 * case: an idea that shows only at some sizes ("keys that fit one tile"). */
struct technique_case {
    const char *id; /* the stage's */
    struct grade_case at;
};

/* Where stage s's technique is counted (lab->technique.elsewhere, or the lab's). */
const struct grade_case *stage_technique_case(const struct lab *lab, const struct stage *s);
/* The technique of stage s (its lab->technique.rows row). */
const struct technique *stage_technique(const struct lab *lab, const struct stage *s);
/* Does what the emulation counted of a run of stage s show its idea? NULL
 * if so; else the first trait that fails, and *got its measure. */
const struct trait *technique_missing(const struct problem *p, const struct stage *s,
                                      const struct access_counts *c, double *got);
/* The verdict in words: "no shared-memory atomics: this stage's idea is a
 * private histogram per block (handout 03-histogram, stage 3)". */
void technique_sentence(const struct lab *lab, const struct stage *s, const struct trait *t,
                        char *text, size_t len);
/* Run stage s once at the lab's technique case, counted under the
 * emulation, and judge its technique: SHOWN, MISSING (the sentence, and the
 * figure against its bound), WRONG (its outputs are wrong there, or it
 * failed: the sentence says how), UNCOUNTED (this build runs on a GPU,
 * which counts nothing). */
enum technique_verdict { SHOWN, MISSING, WRONG, UNCOUNTED };
enum { TECHNIQUE_SMS = 2 }; /* the emulated device's SMs while a technique is counted */
struct technique_result {
    enum technique_verdict verdict;
    char sentence[4096]; /* technique_sentence's, or what went wrong (a report's first line) */
    char figures[256];   /* "counted ... at n = 131075, block 256: 0, where the idea
                            gives at least 1"; "" but for MISSING */
    struct access_counts counts; /* what was counted at the technique case (SHOWN, MISSING) */
};
/* dump: NULL, or a folder that receives the counted run's buffers, as
 * problem_dump writes them, for a grader to judge (grading/grade.sh). */
void stage_technique_check(const struct lab *lab, const struct stage *s, uint64_t seed,
                           const char *dump, struct technique_result *r);
/* The verdict on counts c of stage s at its technique case, in a process
 * that ran no student code (p: the case rebuilt there): SHOWN or MISSING. */
void technique_judge(const struct problem *p, const struct stage *s, const struct access_counts *c,
                     struct technique_result *r);
extern const char *const technique_verdict_names[]; /* "shown", "missing", ... */
/* The workbook's measures, for the labs' traits. Per block is over the
 * blocks that did what is counted (barriers, global atomics, flag stores),
 * per thread over the threads of the largest launch (per launched thread and
 * per block: over every launch); "traffic" is the bytes device memory moves
 * (sectors of 32 bytes, and the library's) over the bytes that must move
 * (p->bytes): about 1 for a single pass. */
#define WORKBOOK_MEASURES(X)                                                                \
    X(shared_atomics) X(global_atomics_per_block) X(global_atomics_per_block_and_output)      \
    X(warp_shuffles) X(warp_votes) X(launches) X(barriers_per_block) X(elements_per_thread)   \
    X(load_bytes_per_lane) X(store_bytes_per_lane) X(load_sectors_per_request)              \
    X(store_sectors_per_request) X(lanes_per_store_request)                                 \
    X(shared_load_wavefronts_per_request) X(shared_wavefronts_per_request)                   \
    X(shared_stores_per_element) X(shared_lanes_share)                                       \
    X(flag_stores_per_block) X(traffic) X(bytes_stored_per_output)                          \
    X(shared_requests_per_element) X(shared_bank_conflicts_per_element)                      \
    X(shared_bytes_per_element) X(barriers_per_element) X(atomics_per_element)              \
    X(shuffles_per_warp)                                                                     \
    X(elements_per_launched_thread) X(elements_per_block) X(load_requests_per_element)       \
    X(store_requests_per_element) X(store_sectors_per_output_sector)                         \
    X(shared_atomics_per_element) X(global_atomics_per_element)                              \
    X(flag_stores_before_waiting_per_block)                                                 \
    X(shuffles_per_element) X(shared_footprint_per_element)                                 \
    X(busiest_thread_shared_accesses) X(loads_after_waiting_per_element)
#define DECLARE_MEASURE(name) measure name;
WORKBOOK_MEASURES(DECLARE_MEASURE)
#undef DECLARE_MEASURE
/* The bytes of a problem's outputs, as a stage must write them once. */
double problem_output_bytes(const struct problem *p);
/* Every measure above of one run, a line "name value" each. */
void print_measures(FILE *out, const struct problem *p, const struct access_counts *c);

#ifdef __cplusplus
}
#endif
#endif
