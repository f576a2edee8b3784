package io.gridlimit.micronaut.config.sources;

import io.micronaut.context.ApplicationContext;

import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The check of GridLimit's settings in the property sources as written, before anything is bound (docs/SPEC.md §9:
 * an unknown or impossible setting stops the boot naming the property and the value). In order:
 *
 * <ol>
 *   <li>a YAML configuration file Micronaut ignored for want of a parser ({@link YamlFiles}) is the only error
 *       reported, since every other one would follow from it;</li>
 *   <li>the lists are resolved and published if that has not been done ({@link ConfiguredLists}: a list set in a
 *       higher source replaces the whole list of lower ones), and an entry missing from a list is an error;</li>
 *   <li>every {@code gridlimit.*} property is checked ({@link PropertyCheck}): its name, the type and range of its
 *       value, the form of its name.</li>
 * </ol>
 *
 * <p>Stateless and thread-safe; one call per boot.
 */
public final class ConfigurationSources {
    private ConfigurationSources() {
    }

    /**
     * What the property sources of a context hold that is wrong.
     *
     * @param errors one message per wrong property ({@code <path>: <what is wrong with 'value'>}), sorted; empty when
     *     all is well
     * @param ignored environment variables and system properties that look like no GridLimit setting (they are
     *     shared with every program of the process, so not refused; logged as a warning)
     */
    public record Check(Set<String> errors, Set<String> ignored) {
        /** Copies the sets. */
        public Check {
            errors = Collections.unmodifiableSortedSet(new TreeSet<>(errors));
            ignored = Collections.unmodifiableSortedSet(new TreeSet<>(ignored));
        }
    }

    /**
     * Checks the property sources of a context, publishing its lists first when the context was not built by a
     * builder (so {@link GridLimitContextConfigurer} did not).
     *
     * @param context a context whose environment has read its property sources
     * @return what is wrong, never null
     */
    public static Check check(ApplicationContext context) {
        List<String> yaml = YamlFiles.ignored(context.getEnvironment());
        if (!yaml.isEmpty()) {
            return new Check(Set.copyOf(yaml), Set.of());
        }
        PropertyCheck check = new PropertyCheck(context, ConfiguredLists.publish(context));
        return new Check(check.errors, check.ignored);
    }
}
