/* A C host of aqmlab's AQMs: builds the AQM named on the command line (default "red") with the
 * parameters given as the second argument, offers it 2000 arrivals at 1 ms spacing to a queue
 * held at 150 packets, runs its timer when due, and prints the decisions and its state. A bad
 * name or parameter prints aqmlab's one-line message and exits with status 2.
 *
 *   cc -std=c99 -Icrates/capi/include crates/capi/examples/step.c target/release/libaqmlab.a \
 *       -lpthread -ldl -lm -o step && ./step betared "q_max_pkts=300, q_target_pkts=140, theta=0.3"
 */
#include "aqmlab.h"

#include <stdio.h>

int main(int argc, char **argv) {
    const char *name = argc > 1 ? argv[1] : "red";
    const char *params = argc > 2 ? argv[2] : "";
    char error[256];
    AqmlabAqm *aqm = aqmlab_aqm_new(name, params, 1000, 50e6, 1, error, sizeof error);
    if (aqm == NULL) {
        fprintf(stderr, "step: %s\n", error);
        return 2;
    }
    unsigned counts[3] = {0, 0, 0};
    for (uint64_t i = 1; i <= 2000; i++) {
        uint64_t now_ns = i * 1000000;
        uint64_t due_ns;
        while (aqmlab_aqm_next_timer(aqm, &due_ns) == 1 && due_ns <= now_ns) {
            if (aqmlab_aqm_timer(aqm, due_ns, 150, 150000) != AQMLAB_OK) {
                fprintf(stderr, "step: %s\n", aqmlab_aqm_error(aqm));
                return 1;
            }
        }
        int32_t verdict = aqmlab_aqm_enqueue(aqm, now_ns, 1000, false, 150, 150000);
        if (verdict < 0) {
            fprintf(stderr, "step: %s\n", aqmlab_aqm_error(aqm));
            return 1;
        }
        counts[verdict]++;
        /* One departure per arrival keeps the queue at 150 packets, 30 ms of sojourn. */
        uint64_t sojourn_ns = now_ns < 30000000 ? now_ns : 30000000;
        if (aqmlab_aqm_dequeue(aqm, now_ns, sojourn_ns, 1000, false, 150, 150000) < 0) {
            fprintf(stderr, "step: %s\n", aqmlab_aqm_error(aqm));
            return 1;
        }
    }
    printf("%s: accept %u, early drop %u, forced drop %u\n", aqmlab_aqm_name(aqm),
           counts[AQMLAB_ACCEPT], counts[AQMLAB_EARLY_DROP], counts[AQMLAB_FORCED_DROP]);
    double values[16];
    int32_t n = aqmlab_aqm_probe(aqm, values, 16);
    for (int32_t i = 0; i < n && i < 16; i++) {
        printf("%s = %g\n", aqmlab_aqm_probe_name(aqm, (size_t)i), values[i]);
    }
    aqmlab_aqm_free(aqm);
    return 0;
}
