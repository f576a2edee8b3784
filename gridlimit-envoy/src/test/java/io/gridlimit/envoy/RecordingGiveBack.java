package io.gridlimit.envoy;

import io.gridlimit.api.Decision;
import io.gridlimit.api.Policy;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** In contexts that set {@code envoy-test.recording-give-back=true}: a {@link GiveBack} that records its calls. */
@Factory
@Requires(property = "envoy-test.recording-give-back", value = "true")
class RecordingGiveBack {
    @Singleton
    @Replaces(value = GiveBack.class, factory = GiveBackFactory.class)
    Recorder recorder() {
        return new Recorder();
    }

    /** Records "policy cost" of each give-back; says it returns capacity, so late answers are awaited. */
    static final class Recorder implements GiveBack {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public boolean returnsCapacity() {
            return true;
        }

        @Override
        public void giveBack(Policy policy, String key, long cost, Decision admitted) {
            calls.add(policy.name() + " " + cost);
        }
    }
}
