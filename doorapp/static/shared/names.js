// A guest as every screen names them: display name and @username (namesakes are real), or the display name
// alone where the @username is shown beside it.
import { t } from "../core/i18n.js";

export function named(guest) {
  return guest.displayname ? `${guest.displayname} (${handle(guest)})` : handle(guest);
}

// "@username", or "not on the platform" for a guest let in by name or read from a file (`is_local` on the door's
// list; a summary's line says it with no username).
export const handle = (guest) => (guest.is_local || !guest.username ? t("guest.notOnPlatform") : "@" + guest.username);

export const shortName = (guest) => guest.displayname || guest.username;

// Who did something (an event's actor, a check-in's checked_in_by): a username, or a door pass by its label
// and its maker ("Maria's phone (pass, made by alice)").
export const actorName = (actor) =>
  actor.pass ? t("pass.actor", { label: actor.pass.label, username: actor.pass.created_by.username }) : actor.username;

// Who let a guest of a meetup's summary in: a username, or the door pass of its checked_in_pass_* fields in
// this language (its checked_in_by has it in English, as the data CSV does).
export const checkerName = (line) =>
  line.checked_in_pass_label === null ? line.checked_in_by
    : t("pass.actor", { label: line.checked_in_pass_label, username: line.checked_in_pass_made_by });
