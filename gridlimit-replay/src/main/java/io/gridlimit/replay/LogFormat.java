package io.gridlimit.replay;

import io.micronaut.core.annotation.Nullable;

import java.util.Locale;

/** The access-log formats the replay reads (issue 24 §1). */
public enum LogFormat {
    /** Apache's Combined Log Format: common plus the quoted referer and user-agent ({@link ClfParser}). */
    COMBINED("combined"),
    /** Apache's Common Log Format ({@link ClfParser}). */
    COMMON("common"),
    /** One JSON object per line ({@link JsonLinesParser}). */
    JSON_LINES("json-lines");

    private final String optionName;

    LogFormat(String optionName) {
        this.optionName = optionName;
    }

    /** @return the spelling on the command line */
    public String optionName() {
        return optionName;
    }

    /**
     * @param text a command-line value, case-insensitive
     * @return the format
     * @throws Options.UsageException naming the value when it is no format
     */
    static LogFormat parse(String text) throws Options.UsageException {
        for (LogFormat f : values()) {
            if (f.optionName.equals(text.trim().toLowerCase(Locale.ROOT))) {
                return f;
            }
        }
        throw new Options.UsageException("--format: '" + text + "' is not one of combined, common, json-lines");
    }

    /**
     * Parses one line in this format.
     *
     * @param line the line
     * @param lineNumber its number in its input, from 1
     * @param sequence its position over all inputs, from 0
     * @return the record, or null when unparseable
     */
    @Nullable LogRecord parse(String line, long lineNumber, long sequence) {
        return switch (this) {
            case COMBINED -> ClfParser.parse(line, true, lineNumber, sequence);
            case COMMON -> ClfParser.parse(line, false, lineNumber, sequence);
            case JSON_LINES -> JsonLinesParser.parse(line, lineNumber, sequence);
        };
    }
}
