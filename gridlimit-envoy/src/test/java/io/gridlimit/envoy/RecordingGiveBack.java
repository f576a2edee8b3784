package io.gridlimit.envoy;

import io.gridlimit.api.RateLimiter;
import io.gridlimit.micronaut.decide.Answer;
import io.gridlimit.micronaut.decide.GiveBack;
import io.gridlimit.micronaut.decide.GiveBackFactory;
import io.gridlimit.micronaut.decide.LocalFallback;
import io.gridlimit.micronaut.decide.ReservationGiveBack;
import io.gridlimit.micronaut.metrics.GridLimitMetrics;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * In contexts that set {@code envoy-test.recording-give-back=true}: the real {@link ReservationGiveBack}, recording
 * each call it gets (the {@link io.gridlimit.micronaut.support.SwitchableGrid} takes no reservations, so its
 * admissions are recorded but cannot be returned; local ones are).
 */
@Factory
@Requires(property = "envoy-test.recording-give-back", value = "true")
class RecordingGiveBack {
    @Singleton
    @Replaces(value = GiveBack.class, factory = GiveBackFactory.class)
    Recorder recorder(RateLimiter limiter, LocalFallback local, GridLimitMetrics metrics) {
        return new Recorder(new ReservationGiveBack(limiter, local, metrics));
    }

    /** Records "policy reason grid|local" of each give-back, then gives back. */
    static final class Recorder implements GiveBack {
        final List<String> calls = new CopyOnWriteArrayList<>();
        private final GiveBack real;

        Recorder(GiveBack real) {
            this.real = real;
        }

        @Override
        public void giveBack(Answer admitted, GridLimitMetrics.GiveBackReason reason) {
            calls.add(admitted.ask().policy().name() + " " + reason.tag() + " " + (admitted.local() ? "local" : "grid"));
            real.giveBack(admitted, reason);
        }
    }
}
