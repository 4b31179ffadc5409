"""Property-based fuzzing of every operation in /openapi.json: no input makes the service answer 5xx, every
answer is one the document declares (its status, media type, headers and body schema), and what the
document allows the server accepts."""

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from doorapp import access

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


# Valid requests by the document that the server refuses for what no schema can state; every other operation
# must accept what the document allows (a 2xx, or 401, 403, 404, 409, 429: the state of the data).
BEYOND_THE_SCHEMA = {
    ("POST", "/auth/register"): "a new username's Unicode rules (no invisible characters, one script)",
    ("POST", "/setup"): "a new username's Unicode rules (no invisible characters, one script)",
    ("POST", "/auth/verify-recovery-code"): "whether the code is the one a site admin issued (400)",
    ("POST", "/auth/reset-password"): "whether the code is the one a site admin issued (400)",
    ("POST", "/organizations/{org_id}/meetups/import"): "whether the file is a guest list (422)",
    ("POST", "/organizations/{org_id}/meetups/{meetup_id}/import"): "whether the file is a guest list (422)",
    ("PATCH", "/staff/{user_id}/approve"): "a role needs an org_id, an org_id an approval (422)",
    ("POST", "/organizations/{org_id}/meetups/{meetup_id}/guests/{platform_user_id}/checkin"): (
        "guests_brought is at most the guest's RSVP'd guests_count (422)"
    ),
    ("PATCH", "/organizations/{org_id}/meetups/{meetup_id}/guests/{platform_user_id}/guests-brought"): (
        "guests_brought is at most the guest's RSVP'd guests_count (422)"
    ),
}


def checks_for(operation, mode):
    if (
        mode is GenerationMode.POSITIVE
        and (operation.method.upper(), operation.path) not in BEYOND_THE_SCHEMA
    ):
        return [*CHECKS, positive_data_acceptance]
    return CHECKS


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_input_makes_a_server_error(app, org, meetup, make_user, mode):
    """Valid inputs (positive) and inputs that break the document's schemas (negative)."""
    # Signed in as a site admin who is also an org admin, so the fuzzer gets past the chain.
    root = make_user("root", site_admin=True, org=org, role="ADMIN")
    token = access.issue_token(app.config["door.config"].secret_key, root, 60)
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)
    failures, operations = [], 0
    for result in schema.get_all_operations():
        operation = result.ok()
        operations += 1

        @given(case=operation.as_strategy(mode))
        @settings(
            max_examples=12,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def run(case):
            case.call_and_validate(
                headers={"Authorization": f"Bearer {token}"},
                checks=checks_for(case.operation, mode),
            )

        try:
            run()
        except Unsatisfiable:  # negative: an operation with nothing to break (no parameters, no body)
            assert mode is GenerationMode.NEGATIVE
        except (Exception, BaseExceptionGroup) as error:  # every operation's failures (Schemathesis: a group)
            failures.append(f"{operation.method.upper()} {operation.path}: {error}")
    assert operations >= 30
    assert not failures, "\n\n".join(failures)
