package io.gridlimit.envoy;

import io.micronaut.context.condition.Condition;
import io.micronaut.context.condition.ConditionContext;
import io.micronaut.core.value.PropertyResolver;

/**
 * Whether the Envoy rate limit service is on: {@value EnvoyRlsSettings#ENABLED_PROPERTY} is {@code true} in any
 * case ({@code true}, {@code True}, {@code TRUE}), as every other boolean GridLimit reads. Any other value than
 * {@code true} or {@code false} never reaches this condition: the startup property check refuses it naming the
 * property and the value (the property is typed in {@link EnvoyRlsProperties#getEnabled()}), so the text {@code yes}
 * or {@code on} never leaves the port silently closed; in a YAML file an unquoted {@code yes} is YAML 1.1's
 * {@code true} before GridLimit sees it, and opens the port (docs/SPEC.md §12). Stateless.
 */
public final class EnvoyRlsEnabled implements Condition {
    @Override
    public boolean matches(ConditionContext context) {
        if (!(context.getBeanContext() instanceof PropertyResolver properties)) {
            return false;
        }
        return properties.getProperty(EnvoyRlsSettings.ENABLED_PROPERTY, String.class)
                .map(v -> v.trim().equalsIgnoreCase("true")).orElse(false);
    }
}
