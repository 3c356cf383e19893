/*
 * format.c — counts, byte sizes and durations formatted for people (see format.h).
 */
#include "format.h"

#include <stdio.h>

char *cli_format_count(char *buf, size_t size, uint64_t value)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)value);
    char grouped[32];
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            grouped[pos++] = ',';
        grouped[pos++] = digits[i];
    }
    grouped[pos] = '\0';
    snprintf(buf, size, "%s", grouped);
    return buf;
}

char *cli_format_bytes(char *buf, size_t size, uint64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, size, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    double value = (double)bytes / 1024.0;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        unit++;
    }
    if (value < 9.995)
        snprintf(buf, size, "%.2f %s", value, units[unit]);
    else if (value < 99.95)
        snprintf(buf, size, "%.1f %s", value, units[unit]);
    else
        snprintf(buf, size, "%.0f %s", value, units[unit]);
    return buf;
}

char *cli_format_duration_ns(char *buf, size_t size, uint64_t ns)
{
    /* Largest unit first; `from` is where it takes over, so that 90 s
     * stays "90 s" rather than "1.5 m". */
    static const struct {
        const char *name;
        double      ns;
        double      from;
    } units[] = {
        {"h", 3600e9, 36000e9},
        {"m", 60e9, 600e9},
        {"s", 1e9, 1e9},
        {"ms", 1e6, 1e6},
        {"us", 1e3, 1e3},
        {"ns", 1.0, 0.0},
    };
    if (ns == 0) {
        snprintf(buf, size, "0 s");
        return buf;
    }
    size_t unit = 0;
    while ((double)ns < units[unit].from)
        unit++;
    double value = (double)ns / units[unit].ns;
    snprintf(buf, size, value < 999.5 ? "%.3g %s" : "%.0f %s", value,
             units[unit].name);
    return buf;
}
