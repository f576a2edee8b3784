package io.gridlimit.micronaut.catalog;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;

/**
 * {@code gridlimit.catalog}, the grid's policy catalog (docs/SPEC.md §11).
 *
 * @param enabled false to decide with the configured policies only, as before the catalog (no seeding, no
 *     overrides, no admin API changes); true by default
 * @param maxOverrides most per-key overrides the cluster holds (a new one beyond it is refused)
 * @param generation this replica's configuration generation, >= 0 (default 0): a configured policy this replica
 *     seeds changes the catalog's record only when that record was seeded by a lower generation, so a rolling
 *     update that changes a policy raises it, and a replica restarted on an older configuration never rolls the
 *     cluster back ({@link PolicyDisagreements})
 */
@ConfigurationProperties("gridlimit.catalog")
public record CatalogProperties(@Bindable(defaultValue = "true") boolean enabled,
                                @Bindable(defaultValue = "100000") @Min(1) @Max(100_000_000) int maxOverrides,
                                @Bindable(defaultValue = "0") @Min(0) @Max(Long.MAX_VALUE) long generation) {
}
