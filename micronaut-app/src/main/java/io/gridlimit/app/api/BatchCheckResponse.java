package io.gridlimit.app.api;

import io.micronaut.serde.annotation.Serdeable;

import java.util.List;

/**
 * The answer to a batch: {@code {"decisions": [...]}}, one {@link CheckResponse} per requested check, in the
 * order of the request's {@code checks}.
 *
 * @param decisions the decisions in request order; as many as there were checks (1 to
 *     {@link DecisionApiController#MAX_BATCH_CHECKS})
 */
@Serdeable
public record BatchCheckResponse(List<CheckResponse> decisions) {
    /**
     * Copies the list.
     *
     * @param decisions the decisions in request order, not null
     */
    public BatchCheckResponse {
        decisions = List.copyOf(decisions);
    }
}
