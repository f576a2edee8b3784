package io.gridlimit.monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The repository's Grafana dashboard ({@code k8s/grafana/gridlimit-dashboard.json}) and the PromQL it sends to
 * Prometheus: every panel target's {@code expr} (rows' nested panels included) and every query variable's query
 * ({@code label_values(<expr>, <label>)} or {@code query_result(<expr>)}; Grafana's other variable functions are
 * refused, since their metric cannot be checked). Immutable.
 */
final class GrafanaDashboard {
    /** The dashboard file, relative to the repository root. */
    static final String FILE = "k8s/grafana/gridlimit-dashboard.json";

    private static final Pattern LABEL_VALUES = Pattern.compile("^\\s*label_values\\((.*),\\s*([a-zA-Z_]\\w*)\\s*\\)\\s*$",
            Pattern.DOTALL);
    private static final Pattern QUERY_RESULT = Pattern.compile("^\\s*query_result\\((.*)\\)\\s*$", Pattern.DOTALL);

    /**
     * One PromQL expression of the dashboard.
     *
     * @param where the panel title and refId, or the variable name, for messages
     * @param expr the expression as Grafana sends it (variables unexpanded)
     * @param requiredLabel a label the expression's metric must carry ({@code label_values}' second argument), or null
     */
    record Expression(String where, String expr, String requiredLabel) {
    }

    private final String json;
    private final JsonNode root;

    private GrafanaDashboard(String json, JsonNode root) {
        this.json = json;
        this.root = root;
    }

    /** @return the repository's dashboard */
    static GrafanaDashboard load() {
        Path file = RenderedOverlay.repoRoot().resolve(FILE);
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new AssertionError("cannot read " + file, e);
        }
    }

    /**
     * @param json a dashboard's JSON model
     * @return the dashboard
     * @throws AssertionError if it is not JSON
     */
    static GrafanaDashboard parse(String json) {
        try {
            return new GrafanaDashboard(json, new ObjectMapper().readTree(json));
        } catch (IOException e) {
            throw new AssertionError("the dashboard is not valid JSON: " + e.getMessage(), e);
        }
    }

    /** @return the file's text */
    String json() {
        return json;
    }

    /** @return the parsed JSON model */
    JsonNode root() {
        return root;
    }

    /** @return every panel, rows' nested panels included, rows themselves included, in order */
    List<JsonNode> panels() {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode panel : root.path("panels")) {
            all.add(panel);
            for (JsonNode nested : panel.path("panels")) {
                all.add(nested);
            }
        }
        return all;
    }

    /**
     * @return every PromQL expression the dashboard runs: panel targets, then query variables
     * @throws AssertionError for a target without {@code expr} or a query variable Grafana would not run as PromQL
     */
    List<Expression> expressions() {
        List<Expression> found = new ArrayList<>();
        for (JsonNode panel : panels()) {
            for (JsonNode target : panel.path("targets")) {
                String where = "panel '" + panel.path("title").asText() + "' target " + target.path("refId").asText();
                if (!target.path("expr").isTextual() || target.path("expr").asText().isBlank()) {
                    throw new AssertionError(where + " has no PromQL expr: " + target);
                }
                found.add(new Expression(where, target.path("expr").asText(), null));
            }
        }
        for (JsonNode variable : root.path("templating").path("list")) {
            if (!variable.path("type").asText().equals("query")) {
                continue;
            }
            JsonNode q = variable.path("query");
            String query = q.isTextual() ? q.asText() : q.path("query").asText();
            String where = "variable $" + variable.path("name").asText();
            Matcher labelValues = LABEL_VALUES.matcher(query);
            Matcher queryResult = QUERY_RESULT.matcher(query);
            if (labelValues.matches()) {
                found.add(new Expression(where, labelValues.group(1), labelValues.group(2)));
            } else if (queryResult.matches()) {
                found.add(new Expression(where, queryResult.group(1), null));
            } else {
                throw new AssertionError(where + ": query '" + query + "' names no metric this test can check;"
                        + " use label_values(<metric>, <label>) or query_result(<expr>)");
            }
        }
        return found;
    }
}
