package io.gridlimit.envoy;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/**
 * Provides the {@link GiveBack} the Envoy service uses: {@link GiveBack#NONE} until grid-core's
 * {@code RateLimiter} can give capacity back. Replace the bean
 * ({@code @Replaces(value = GiveBack.class, factory = GiveBackFactory.class)}) to change it.
 */
@Factory
public class GiveBackFactory {
    /** @return the give-back of all-or-nothing decisions and late admissions */
    @Singleton
    public GiveBack giveBack() {
        return GiveBack.NONE;
    }
}
