/*
 * smoke.c — a small user program of the installed library: only its two
 * headers, <tdbf.h> (the core) and <tdbf_model.h> (a planner), nothing
 * from the source tree.  Built with `pkg-config tdbf` by
 * tests/install-smoke.sh (make install) and tests/deb-smoke.sh (the Debian
 * packages); exits 0 when the library it runs with behaves.
 */
#include <tdbf.h>
#include <tdbf_model.h>
#include <stdio.h>
#include <string.h>

/* The planner of <tdbf_model.h> sizes the filter tdbf_open builds: same
 * k, l and window for the same configuration. */
static int plan_matches_open(const tdbf_config *cfg)
{
    tdbf_plan plan;
    tdbf_shape shape;
    tdbf *f = NULL;
    int rc = tdbf_plan_shape(cfg, &shape);

    if (rc == TDBF_OK)
        rc = tdbf_plan_eval(shape.k, shape.l, cfg->window_items, &plan);
    if (rc == TDBF_OK)
        rc = tdbf_open(&f, cfg);
    if (rc != TDBF_OK) {
        fprintf(stderr, "smoke: planning: %s\n", tdbf_strerror(rc));
        return 1;
    }
    tdbf_get_shape(f, &shape);
    tdbf_close(f);
    if (plan.k != shape.k || plan.l != shape.l || plan.window != shape.window_items) {
        fprintf(stderr, "smoke: tdbf_plan_eval (k %u, l %u, window %llu) is not the "
                "filter's (k %u, l %u, window %llu)\n", plan.k, plan.l,
                (unsigned long long)plan.window, shape.k, shape.l,
                (unsigned long long)shape.window_items);
        return 1;
    }
    return 0;
}

int main(void)
{
    tdbf_config cfg;
    tdbf *f = NULL;
    char key[32];
    int i, rc;

    if (tdbf_version_number() != TDBF_VERSION_NUMBER ||
        strcmp(tdbf_version_string(), TDBF_VERSION_STRING) != 0) {
        fprintf(stderr, "smoke: version mismatch\n");
        return 1;
    }
    tdbf_config_init(&cfg);
    cfg.design = TDBF_APBF;
    cfg.window_items = 1000;
    cfg.seed = 42;
    rc = tdbf_open(&f, &cfg);
    if (rc != TDBF_OK) {
        fprintf(stderr, "smoke: tdbf_open: %s\n", tdbf_strerror(rc));
        return 1;
    }
    for (i = 0; i < 500; i++) {
        snprintf(key, sizeof key, "key-%d", i);
        if (tdbf_add(f, key, strlen(key), 0) < 0) {
            fprintf(stderr, "smoke: tdbf_add failed\n");
            return 1;
        }
    }
    for (i = 0; i < 500; i++) {
        snprintf(key, sizeof key, "key-%d", i);
        if (tdbf_contains(f, key, strlen(key), 0) != 1) {
            fprintf(stderr, "smoke: %s missing\n", key);
            return 1;
        }
    }
    /* Re-adding a key says it was there. */
    if (tdbf_add(f, "key-7", 5, 0) != 1) {
        fprintf(stderr, "smoke: re-add not reported present\n");
        return 1;
    }
    if (tdbf_contains(f, "never", 5, 0) < 0 || tdbf_contains(f, NULL, 3, 0) != TDBF_EINVAL) {
        fprintf(stderr, "smoke: bad answers to odd queries\n");
        return 1;
    }
    tdbf_close(f);
    return plan_matches_open(&cfg);
}
