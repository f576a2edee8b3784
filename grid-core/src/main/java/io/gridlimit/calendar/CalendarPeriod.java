package io.gridlimit.calendar;

import java.util.Locale;

/**
 * The kinds of calendar period a calendar band counts in (docs/SPEC.md §14), with their configuration names.
 * Each period starts at a local date-time of its zone: the hour at {@code hh:00}, the day at midnight, the week at
 * midnight of its first day, the month at midnight of its anchor day, the quarter at midnight of January, April,
 * July or October 1st, the year at midnight of January 1st.
 */
public enum CalendarPeriod {
    /** From {@code hh:00} local to the next {@code hh:00}. */
    HOUR("hour"),
    /** From local midnight to the next local midnight: 23, 24 or 25 hours where the zone changes its offset. */
    DAY("day"),
    /** From local midnight of the week's first day ({@code week-start}, default Monday), seven local days. */
    WEEK("week"),
    /** From local midnight of the anchor day (default 1; the month's last day when it is shorter). */
    MONTH("month"),
    /** From local midnight of January, April, July or October 1st. */
    QUARTER("quarter"),
    /** From local midnight of January 1st. */
    YEAR("year");

    private final String configName;

    CalendarPeriod(String configName) {
        this.configName = configName;
    }

    /** @return the name used in configuration, e.g. {@code "month"}, never null */
    public String configName() {
        return configName;
    }

    /**
     * Parses a configuration name, case-insensitively, surrounding whitespace ignored.
     *
     * @param name e.g. {@code "month"}
     * @return the period, never null
     * @throws IllegalArgumentException if {@code name} is null or names no period; the message quotes it and lists
     *     the accepted names
     */
    public static CalendarPeriod fromConfigName(String name) {
        if (name != null) {
            String n = name.trim().toLowerCase(Locale.ROOT);
            for (CalendarPeriod p : values()) {
                if (p.configName.equals(n)) {
                    return p;
                }
            }
        }
        throw new IllegalArgumentException("period must be one of hour, day, week, month, quarter, year, got '"
                + name + "'");
    }
}
