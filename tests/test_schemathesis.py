"""Property-based fuzzing of every operation in /openapi.json: no input makes the service answer 5xx,
and every status it answers is one the document lists."""

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error, status_code_conformance

from doorapp import access


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
                checks=[not_a_server_error, status_code_conformance],
            )

        try:
            run()
        except Unsatisfiable:  # negative: an operation with nothing to break (no parameters, no body)
            assert mode is GenerationMode.NEGATIVE
        except Exception as error:  # collect every operation's failure, then report them together
            failures.append(f"{operation.method.upper()} {operation.path}: {error}")
    assert operations >= 30
    assert not failures, "\n\n".join(failures)
