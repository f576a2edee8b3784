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
 */
@ConfigurationProperties("gridlimit.catalog")
public record CatalogProperties(@Bindable(defaultValue = "true") boolean enabled,
                                @Bindable(defaultValue = "100000") @Min(1) @Max(100_000_000) int maxOverrides) {
}
