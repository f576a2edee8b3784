package io.gridlimit.grid.catalog;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import java.util.Set;

/**
 * Internal to grid-core: not API; public for {@code GridLimitHazelcast}, {@code PolicyCatalog} and the policy maps
 * ({@code io.gridlimit.grid.async}).
 *
 * <p>Whether a cluster reads the policy catalog's wire types (class ids 30 to 39, docs/SPEC.md §11): every member
 * configured by {@link io.gridlimit.grid.GridLimitHazelcast#configure(Config)} advertises the member attribute
 * {@link #MEMBER_ATTRIBUTE}; a member without it is of a GridLimit before the catalog. Processors carrying a policy
 * version are sent, and catalog changes accepted, only while every member advertises it (grid-core/docs/wire.md),
 * so a rolling upgrade from the version before works: until its last old member has left, decisions go out in the
 * form without a version and the catalog refuses changes.
 *
 * <p>Configuration generations (class ids 36 and 37) have an attribute of their own, {@link #GENERATIONS_ATTRIBUTE}:
 * a member of a GridLimit before them advertises the catalog but not generations, and a seed carries its generation
 * only while every member advertises both ({@link #generations}). Thread-safe.
 */
public final class CatalogSupport {
    /** The member attribute: the catalog format a member reads, as a decimal string. */
    static final String MEMBER_ATTRIBUTE = "gridlimit.catalog";
    /** The catalog format read here. */
    static final String FORMAT = "1";
    /**
     * The member attribute saying a member reads configuration generations (the policy record of class id 36 and
     * the seed of class id 37): {@value #GENERATIONS_VERSION}.
     */
    public static final String GENERATIONS_ATTRIBUTE = "gridlimit.catalog-generations";
    /** The value of {@link #GENERATIONS_ATTRIBUTE}. */
    static final String GENERATIONS_VERSION = "1";

    /** The last member set asked about (Hazelcast hands out one set per membership view) and its answers. */
    private record Answer(Set<Member> members, boolean all, boolean generations) {
    }

    private static volatile Answer last = new Answer(Set.of(), false, false);

    private CatalogSupport() {
    }

    /** @param config a member configuration, changed in place: advertises the catalog and its generations */
    public static void advertise(Config config) {
        config.getMemberAttributeConfig().setAttribute(MEMBER_ATTRIBUTE, FORMAT);
        config.getMemberAttributeConfig().setAttribute(GENERATIONS_ATTRIBUTE, GENERATIONS_VERSION);
    }

    /**
     * @param instance a member or a client
     * @return true when every member of its cluster advertises the catalog (false with no member)
     */
    public static boolean everyMember(HazelcastInstance instance) {
        return answer(instance).all();
    }

    /**
     * @param instance a member or a client
     * @return true when every member of its cluster advertises the catalog and its generations (false with no member)
     */
    public static boolean generations(HazelcastInstance instance) {
        return answer(instance).generations();
    }

    private static Answer answer(HazelcastInstance instance) {
        Set<Member> members = instance.getCluster().getMembers();
        Answer seen = last;
        if (members == seen.members()) {
            return seen;
        }
        boolean all = !members.isEmpty();
        boolean generations = all;
        for (Member m : members) {
            all &= FORMAT.equals(m.getAttribute(MEMBER_ATTRIBUTE));
            generations &= GENERATIONS_VERSION.equals(m.getAttribute(GENERATIONS_ATTRIBUTE));
        }
        Answer answer = new Answer(members, all, all && generations);
        last = answer;
        return answer;
    }

    /**
     * @return an empty policy record to be read in the form of class id {@link io.gridlimit.grid.wire.SerializationIds#POLICY_RECORD}
     *     (for {@link io.gridlimit.grid.GridLimitDataSerializableFactory})
     */
    public static PolicyRecord emptyRecord() {
        return new PolicyRecord();
    }

    /**
     * @return an empty policy record to be read in the form of class id
     *     {@link io.gridlimit.grid.wire.SerializationIds#POLICY_RECORD_GENERATION}, with its generation
     */
    public static PolicyRecord emptyGenerationRecord() {
        return PolicyRecord.generationForm();
    }
}
