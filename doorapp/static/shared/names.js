// A guest as every screen names them: display name and @username (namesakes are real), or the display name
// alone where the @username is shown beside it.
import { t } from "../core/i18n.js";

export function named(guest) {
  const handle = guest.is_local ? t("guest.notOnPlatform") : "@" + guest.username;
  return guest.displayname ? `${guest.displayname} (${handle})` : handle;
}

export const shortName = (guest) => guest.displayname || guest.username;
