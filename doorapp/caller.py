"""Who is calling a route: one value, made once per request by the token step (doorapp.access.tokens) and
handed on to the route's Rule, to the handler (its `caller` parameter), and to the models, idempotency and
the audit log that record what it did. It imports nothing of Door's, so every layer may take it.

docs/architecture.md ("Who is calling") says how a new kind of caller is added."""

from dataclasses import dataclass

ACCOUNT = "account"  # a person signed in with an account: every Rule but `public` admits it
DOOR = "door"  # a door pass: only Rules that admit DOOR (the door's routes) let it in


@dataclass(frozen=True)
class Caller:
    """Who is calling, as Starlette's authentication step gives who (`user`) and what they may do
    (`scopes`), and as Datasette's actor is one shape for every way in. The token step fills it in; after
    that step nothing asks which kind of caller it is: a Rule reads `scopes`, the bounds and the account,
    the audit log and a check-in write `user` and `door_pass` as they are, rate limits and Idempotency-Keys
    use `key` and `owner_id`.

    - `user`: the account calling (a models.User; its role in the path's org as `user.org_role`), or None
      for a caller without one (a door pass).
    - `door_pass`: the door pass it works as (a models.DoorPass, its maker joined as `created_by`), or None.
      A check-in and the audit log name the caller by these two: who checked in, which pass.
    - `scopes`: what kinds of route it may call (ACCOUNT, DOOR); a Rule lets in the scopes it `admits`.
    - `org_id`, `meetup_id`: where it is bound (a door pass: its org, and its meetup or None for every open
      one). None for an account: its memberships and the Rule's check decide where it acts.
    - `site_admin`: the token's role is SITE_ADMIN, which passes every Rule's check.
    - `key`: a key of its own for rate limits and Idempotency-Keys: "12" (an account's id), "pass 7" (no
      account's key holds a space).
    - `owner_id`: the account that answers for it: its own, or a door pass's maker (Idempotency-Keys are
      kept under an account).
    - `name`: what a refusal calls it ("This door pass is for another organization."); words only.

    A handler takes `caller` (never a `user`): `caller.user` is the account, None for a door pass."""

    user: object | None
    door_pass: object | None
    scopes: frozenset
    key: str
    owner_id: int
    name: str
    org_id: str | None = None
    meetup_id: str | None = None
    site_admin: bool = False

    @property
    def actor(self):
        """(account id, door pass id) of who acted, as the audit log and a check-in store it."""
        return (self.user and self.user.id, self.door_pass and self.door_pass.id)

    def may_work(self, meetup):
        """Whether the caller may work this meetup of the org its Rule let it into: any, for an unbound
        caller (an account); for one bound to a door (a door pass), an open meetup, its own if it has one."""
        if self.org_id is None:
            return True
        return meetup.is_open and self.meetup_id in (None, str(meetup.id))
