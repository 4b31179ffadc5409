// A guest as every screen names them: display name and @username (namesakes are real), or the display name
// alone where the @username is shown beside it.
import { t } from "../core/i18n.js";

export function named(guest) {
  return guest.displayname ? `${guest.displayname} (${handle(guest)})` : handle(guest);
}

// "@username", or "not on the platform" for a guest let in by name or read from a file (`is_local` on the
// door's list; a summary's line says it with no username); a platform member a file listed before Door read
// their profile, by the end of their id.
export function handle(guest) {
  if (guest.is_local === false && !guest.username)
    return t("guest.member", { end: String(guest.platform_user_id).slice(-4) });
  return guest.is_local || !guest.username ? t("guest.notOnPlatform") : "@" + guest.username;
}

// What tells a guest read from a file apart from namesakes (the door list's `hint`):
// "e-mail lena…", "id …7919".
export function hintText(guest) {
  const [kind, value] = [guest.hint?.split(":", 1)[0], guest.hint?.slice(guest.hint.indexOf(":") + 1)];
  if (kind === "email") return t("guest.hintEmail", { start: value });
  if (kind === "id") return t("guest.hintId", { end: value });
  return "";
}

export const shortName = (guest) => guest.displayname || guest.username;

// Who did something (an event's actor, a check-in's checked_in_by): a username, or a door pass by its label
// and its maker ("Maria's phone (pass, made by alice)").
export const actorName = (actor) =>
  actor.pass
    ? t("pass.actor", { label: actor.pass.label, username: actor.pass.created_by.username })
    : actor.username;

// Who let a guest of a meetup's summary in: a username, or the door pass of its checked_in_pass_* fields in
// this language (its checked_in_by has it in English, as the data CSV does).
export const checkerName = (line) =>
  line.checked_in_pass_label === null
    ? line.checked_in_by
    : t("pass.actor", { label: line.checked_in_pass_label, username: line.checked_in_pass_made_by });
