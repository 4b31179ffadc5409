// Finalizing a meetup (or opening it again), confirmed first: from the door screen and the meetups list.
import { api } from "../core/api.js";
import { ask } from "../core/dom.js";
import { t } from "../core/i18n.js";
import { orgPath } from "../core/session.js";

// The meetup as Door says it is afterwards, or null when the user changed their mind.
export async function confirmFinalize(meetup, finalize, title) {
  let changed = null;
  const done = await ask({
    title,
    message: t(finalize ? "meetup.finalizeText" : "meetup.unfinalizeText"),
    confirm: t(finalize ? "meetup.finalize" : "meetup.unfinalize"),
    danger: finalize,
    action: async () => {
      changed = await api.patch(
        orgPath(`/meetups/${meetup.id}/${finalize ? "finalize" : "unfinalize"}`, { id: meetup.org_id }),
        {},
      );
    },
  });
  return done ? changed : null;
}
