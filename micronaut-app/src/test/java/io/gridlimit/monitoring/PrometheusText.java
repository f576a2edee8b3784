package io.gridlimit.monitoring;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A scrape of a {@code /prometheus} endpoint in the Prometheus text exposition format (0.0.4, or OpenMetrics 1.0
 * text): its samples with their labels and values, and its families' {@code # TYPE} and {@code # HELP}.
 *
 * <p>Label values are unescaped ({@code \\}, {@code \"}, {@code \n}). Sample names are those a PromQL query
 * selects ({@code x_total}, {@code x_bucket}, {@code x_sum}, {@code x_count}, {@code x_max}); {@link #family}
 * maps one back to its {@code # TYPE} family, removing the suffix the type gives its samples. Immutable.
 */
final class PrometheusText {
    /**
     * One sample line.
     *
     * @param name the sample name
     * @param labels its labels, sorted by name
     * @param value its value ({@code NaN}, {@code +Inf} included)
     */
    record Sample(String name, Map<String, String> labels, double value) {
        /** @return the series identity: name and labels, without the value */
        String series() {
            return name + labels;
        }
    }

    private final String text;
    private final List<Sample> samples;
    private final Map<String, String> types;
    private final Map<String, String> help;

    private PrometheusText(String text, List<Sample> samples, Map<String, String> types, Map<String, String> help) {
        this.text = text;
        this.samples = List.copyOf(samples);
        this.types = Collections.unmodifiableMap(types);
        this.help = Collections.unmodifiableMap(help);
    }

    /**
     * Parses a scrape.
     *
     * @param text the endpoint's body
     * @return the parsed scrape
     * @throws IllegalArgumentException naming the first line that is not a comment, a blank or a sample
     */
    static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, String> help = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("#")) {
                String[] parts = line.split(" ", 4);
                if (parts.length >= 4 && parts[1].equals("TYPE")) {
                    types.put(parts[2], parts[3].trim());
                } else if (parts.length >= 3 && parts[1].equals("HELP")) {
                    help.put(parts[2], parts.length == 4 ? parts[3] : "");
                }
                continue;
            }
            samples.add(sample(line));
        }
        return new PrometheusText(text, samples, types, help);
    }

    private static Sample sample(String line) {
        int i = 0;
        int n = line.length();
        while (i < n && line.charAt(i) != '{' && line.charAt(i) != ' ') {
            i++;
        }
        String name = line.substring(0, i);
        if (name.isEmpty()) {
            throw new IllegalArgumentException("no sample name: " + line);
        }
        Map<String, String> labels = new TreeMap<>();
        if (i < n && line.charAt(i) == '{') {
            i++;
            while (i < n && line.charAt(i) != '}') {
                if (line.charAt(i) == ',') {
                    i++;
                    continue;
                }
                int eq = line.indexOf('=', i);
                if (eq < 0 || eq + 1 >= n || line.charAt(eq + 1) != '"') {
                    throw new IllegalArgumentException("malformed labels: " + line);
                }
                String label = line.substring(i, eq).trim();
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                while (j < n && line.charAt(j) != '"') {
                    char c = line.charAt(j);
                    if (c == '\\' && j + 1 < n) {
                        char e = line.charAt(++j);
                        value.append(e == 'n' ? '\n' : e);
                    } else {
                        value.append(c);
                    }
                    j++;
                }
                if (j >= n) {
                    throw new IllegalArgumentException("unterminated label value: " + line);
                }
                labels.put(label, value.toString());
                i = j + 1;
            }
            if (i >= n) {
                throw new IllegalArgumentException("unterminated labels: " + line);
            }
            i++;
        }
        String[] rest = line.substring(i).trim().split("\\s+");
        if (rest.length == 0 || rest[0].isEmpty()) {
            throw new IllegalArgumentException("no value: " + line);
        }
        return new Sample(name, Collections.unmodifiableMap(labels), value(rest[0]));
    }

    private static double value(String text) {
        return switch (text) {
            case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }

    /** @return the scrape as received, for failure messages */
    String text() {
        return text;
    }

    /** @return every sample, in order */
    List<Sample> samples() {
        return samples;
    }

    /**
     * @param name a sample name
     * @return its samples, in order (empty if the scrape has none)
     */
    List<Sample> samples(String name) {
        return samples.stream().filter(s -> s.name().equals(name)).collect(Collectors.toList());
    }

    /** @return the distinct sample names */
    Set<String> sampleNames() {
        return samples.stream().map(Sample::name).collect(Collectors.toCollection(LinkedHashSet::new));
    }

    /**
     * Finds the {@code # TYPE} family a sample name belongs to: the name itself, or the name without the suffix
     * its type gives it ({@code _total}/{@code _created} of a counter, {@code _bucket}/{@code _sum}/{@code _count}
     * of a histogram or summary, {@code _gsum}/{@code _gcount} of a gauge histogram).
     *
     * @param sampleName a sample name
     * @return the family name, or null when no declared family owns it
     */
    String family(String sampleName) {
        if (types.containsKey(sampleName)) {
            return sampleName;
        }
        for (String suffix : List.of("_total", "_created", "_bucket", "_sum", "_count", "_gsum", "_gcount")) {
            if (sampleName.endsWith(suffix)) {
                String base = sampleName.substring(0, sampleName.length() - suffix.length());
                String type = types.get(base);
                if (type != null && suffixBelongs(suffix, type)) {
                    return base;
                }
            }
        }
        return null;
    }

    private static boolean suffixBelongs(String suffix, String type) {
        return switch (type) {
            case "counter" -> suffix.equals("_total") || suffix.equals("_created");
            case "histogram" -> Set.of("_bucket", "_sum", "_count", "_created").contains(suffix);
            case "summary" -> Set.of("_sum", "_count", "_created").contains(suffix);
            case "gaugehistogram" -> Set.of("_bucket", "_gsum", "_gcount").contains(suffix);
            default -> false;
        };
    }

    /**
     * @param family a family name
     * @return its {@code # TYPE}, or null if undeclared
     */
    String type(String family) {
        return types.get(family);
    }

    /**
     * @param family a family name
     * @return its {@code # HELP} text, or null if undeclared
     */
    String help(String family) {
        return help.get(family);
    }

    /** @return every declared family and its type */
    Map<String, String> types() {
        return types;
    }
}
