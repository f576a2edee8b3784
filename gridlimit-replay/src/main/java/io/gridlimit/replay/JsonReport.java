package io.gridlimit.replay;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code --json} report, schema {@value #SCHEMA} (README "Replay" documents every field):
 * <pre>
 * {"schema": "gridlimit-replay/1",
 *  "requests": 10,                  // requests replayed (parsed lines)
 *  "outcomes": {"admitted": 8, "denied": 2, "rejected": 0, "unlimited": 0},
 *  "lines": {"read": 10, "unparseable": 0, "unparseableFirst": [], "late": 0, "lateFirst": [],
 *            "reorderWindowMillis": 300000},
 *  "span": {"from": "2026-01-01T00:00:00Z", "to": "2026-01-01T00:00:40Z", "bucketSeconds": 60},
 *  "keysShown": "hashed" | "raw",
 *  "policies": [{"name": "per-ip", "shadow": false, "requests": 10, "admitted": 8, "denied": 2, "keys": 1,
 *                "missingKeyRejected": 0, "missingKeySkipped": 0,
 *                "topKeys": [{"key": "…", "requests": 10, "denied": 2}],          // at most 10, most denied first
 *                "overTime": [{"start": "2026-01-01T00:00:00Z", "requests": 10, "denied": 2}],
 *                "alternatives": [{"algorithm": "sliding-window-counter", "configured": false,
 *                                  "requests": 10, "admitted": 6, "denied": 4,
 *                                  "overAdmitted": 0, "overDenied": 2,          // against the exact log
 *                                  "overAdmittedPercent": 0, "overDeniedPercent": 20,
 *                                  "problem": null}],
 *                "alternativesUnavailable": null,
 *                "comparison": "Of the 10 requests of policy 'per-ip', the sliding-window counter …"}]}
 * </pre>
 * Percentages are numbers rounded half-up to 4 decimals. Stateless.
 */
public final class JsonReport {
    /** The schema name and version in every report. */
    public static final String SCHEMA = "gridlimit-replay/1";

    private JsonReport() {
    }

    /**
     * @param run the finished replay
     * @return the report as one JSON document
     */
    public static String write(ReplayRun run) {
        Replayer r = run.replayer();
        Json j = new Json().open('{');
        j.name("schema").value(SCHEMA);
        j.name("requests").value(r.requests());
        j.name("outcomes").open('{').name("admitted").value(r.admitted()).name("denied").value(r.denied())
                .name("rejected").value(r.rejected()).name("unlimited").value(r.unlimited()).close('}');
        j.name("lines").open('{').name("read").value(run.lines()).name("unparseable").value(run.bad());
        j.name("unparseableFirst").open('[');
        run.badLines().forEach(j::value);
        j.close(']').name("late").value(run.late()).name("lateFirst").open('[');
        run.lateLines().forEach(j::value);
        j.close(']').name("reorderWindowMillis").value(run.reorderWindowNanos() / 1_000_000).close('}');
        boolean any = r.requests() > 0;
        long bucket = any ? Timeline.bucketNanos(r.firstNanos(), r.lastNanos()) : PolicyStats.SLOT_NANOS;
        j.name("span").open('{').name("from").value(any ? instant(r.firstNanos()) : null)
                .name("to").value(any ? instant(r.lastNanos()) : null)
                .name("bucketSeconds").value(bucket / 1_000_000_000L).close('}');
        j.name("keysShown").value(run.showKeys() ? "raw" : "hashed");
        j.name("policies").open('[');
        for (PolicyStats p : r.policies()) {
            policy(j, run, p, bucket);
        }
        j.close(']').close('}');
        return j.toString();
    }

    private static void policy(Json j, ReplayRun run, PolicyStats p, long bucket) {
        Replayer r = run.replayer();
        j.open('{').name("name").value(p.name()).name("shadow").raw(String.valueOf(p.shadow()))
                .name("requests").value(p.requests()).name("admitted").value(p.admitted())
                .name("denied").value(p.denied()).name("keys").value(p.keys())
                .name("missingKeyRejected").value(p.missingKeyRejected())
                .name("missingKeySkipped").value(p.missingKeySkipped());
        j.name("topKeys").open('[');
        for (PolicyStats.KeyCount k : p.topDenied(ReplayRun.TOP_KEYS)) {
            j.open('{').name("key").value(run.shown(k.key())).name("requests").value(k.requests())
                    .name("denied").value(k.denied()).close('}');
        }
        j.close(']').name("overTime").open('[');
        TreeMap<Long, long[]> series = r.requests() == 0 ? new TreeMap<>()
                : Timeline.buckets(p.minutes(), r.firstNanos(), r.lastNanos(), bucket);
        for (Map.Entry<Long, long[]> e : series.entrySet()) {
            j.open('{').name("start").value(instant(e.getKey())).name("requests").value(e.getValue()[0])
                    .name("denied").value(e.getValue()[1]).close('}');
        }
        j.close(']').name("alternatives").open('[');
        Alternatives alternatives = r.alternatives(p.name());
        for (Alternatives.Variant v : alternatives.variants()) {
            j.open('{').name("algorithm").value(v.algorithm().configName())
                    .name("configured").raw(String.valueOf(v.configured()))
                    .name("requests").value(v.requests()).name("admitted").value(v.admitted())
                    .name("denied").value(v.denied()).name("overAdmitted").value(v.overAdmitted())
                    .name("overDenied").value(v.overDenied())
                    .name("overAdmittedPercent").raw(Comparison.percent(v.overAdmitted(), v.requests())
                            .toPlainString())
                    .name("overDeniedPercent").raw(Comparison.percent(v.overDenied(), v.requests()).toPlainString())
                    .name("problem").value(v.problem()).close('}');
        }
        j.close(']').name("alternativesUnavailable").value(alternatives.unavailable())
                .name("comparison").value(Comparison.sentence(p, alternatives)).close('}');
    }

    private static String instant(long epochNanos) {
        return Instant.ofEpochSecond(Math.floorDiv(epochNanos, 1_000_000_000L),
                Math.floorMod(epochNanos, 1_000_000_000L)).toString();
    }
}
