package io.gridlimit.envoy;

import io.gridlimit.envoy.config.RlsConfig;
import java.util.List;

/** Test access to {@link EnvoyRlsRules}' package-private rule of what a new set leaves unprotected. */
public final class EnvoyRlsRulesAccess {
    private EnvoyRlsRulesAccess() {
    }

    /**
     * @param inForce the set in force
     * @param next a new set
     * @return {@link EnvoyRlsRules#unprotected}
     */
    public static List<String> unprotected(RlsConfig inForce, RlsConfig next) {
        return EnvoyRlsRules.unprotected(inForce, next);
    }
}
