package io.gridlimit.k8s;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Finds what the fabric8 Kubernetes model could not map: every model object keeps the JSON fields it does not know
 * (a misspelt field name, or a value of the wrong type) in its {@code additionalProperties} map instead of failing.
 * This walk visits every model object of a parsed document, recursively through fields, lists and maps, and reports
 * each non-empty {@code additionalProperties} with its path, e.g.
 * {@code spec.template.spec.containers[0]: [readinesProbe]}.
 *
 * <p>Stateless; the walk is over a tree (the model has no cycles).
 */
final class UnknownFields {
    private static final String MODEL_PACKAGE = "io.fabric8.kubernetes.api.model";

    private UnknownFields() {
    }

    /**
     * Lists the unmapped fields of a parsed model object.
     *
     * @param model a fabric8 model object, e.g. a {@code Deployment}
     * @return one line per object with unmapped fields, {@code "<path>: [<field names>]"}; empty when everything
     *     mapped
     */
    static List<String> of(Object model) {
        List<String> found = new ArrayList<>();
        walk(model, "", found);
        return found;
    }

    private static void walk(Object value, String path, List<String> found) {
        if (value == null) {
            return;
        }
        if (value instanceof Collection<?> list) {
            int i = 0;
            for (Object item : list) {
                walk(item, path + "[" + i++ + "]", found);
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                walk(entry.getValue(), path + "[" + entry.getKey() + "]", found);
            }
            return;
        }
        if (!value.getClass().getName().startsWith(MODEL_PACKAGE)) {
            return; // strings, numbers, booleans, enums: leaves
        }
        for (Class<?> type = value.getClass(); type != null && type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                if (Modifier.isStatic(field.getModifiers())) {
                    continue;
                }
                Object fieldValue = read(field, value);
                if (field.getName().equals("additionalProperties")) {
                    if (fieldValue instanceof Map<?, ?> extra && !extra.isEmpty()) {
                        TreeSet<String> names = new TreeSet<>();
                        extra.keySet().forEach(k -> names.add(String.valueOf(k)));
                        found.add((path.isEmpty() ? "<root>" : path) + ": " + names);
                    }
                } else {
                    walk(fieldValue, path.isEmpty() ? field.getName() : path + "." + field.getName(), found);
                }
            }
        }
    }

    private static Object read(Field field, Object owner) {
        try {
            field.setAccessible(true);
            return field.get(owner);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new AssertionError("cannot read " + field + " of " + owner.getClass().getName(), e);
        }
    }
}
