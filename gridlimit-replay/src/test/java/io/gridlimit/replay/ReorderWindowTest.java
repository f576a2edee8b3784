package io.gridlimit.replay;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The reorder window: stable timestamp order, and a line later than the window replayed at its edge. */
class ReorderWindowTest {
    private static final long S = 1_000_000_000L;

    @Test
    void releasesInTimeOrderStablyAndMovesLateLinesToTheEdge() {
        List<LogRecord> out = new ArrayList<>();
        ReorderWindow w = new ReorderWindow(10 * S, out::add);
        long[] times = {0, 5, 3, 20, 1, 10, 30};
        for (int i = 0; i < times.length; i++) {
            w.add(new LogRecord(i + 1, i, times[i] * S, "10.0.0.1", "GET", "/", 200, null), "log");
        }
        // after 20 s the edge is 10 s: 0, 3, 5 leave; 1 s is late (before the edge) and leaves at 10 s; the line at
        // exactly 10 s is not late and follows it (file order); 20 s leaves when 30 s comes; 30 s at the end
        assertThat(out).extracting(LogRecord::sequence).containsExactly(0L, 2L, 1L, 4L, 5L, 3L);
        w.flush();
        assertThat(out).extracting(LogRecord::sequence).containsExactly(0L, 2L, 1L, 4L, 5L, 3L, 6L);
        assertThat(out).extracting(r -> r.timeNanos() / S).containsExactly(0L, 3L, 5L, 10L, 10L, 20L, 30L);
        assertThat(w.late()).isEqualTo(1);
        assertThat(w.lateLines()).containsExactly("log:5");
    }

    @Test
    void equalTimesKeepFileOrderAndAZeroWindowMakesEveryEarlierLineLate() {
        List<LogRecord> out = new ArrayList<>();
        ReorderWindow w = new ReorderWindow(0, out::add);
        long[] times = {5, 5, 4, 6, 6};
        for (int i = 0; i < times.length; i++) {
            w.add(new LogRecord(i + 1, i, times[i] * S, "10.0.0.1", "GET", "/", 200, null), "log");
        }
        w.flush();
        assertThat(out).extracting(LogRecord::sequence).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(out).extracting(r -> r.timeNanos() / S).containsExactly(5L, 5L, 5L, 6L, 6L);
        assertThat(w.lateLines()).containsExactly("log:3");
    }
}
