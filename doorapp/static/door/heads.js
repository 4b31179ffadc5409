// What the door asks before a check-in, in one dialog: whether to let in a guest on the waitlist, and how
// many of the guests they RSVP'd with came (0..N, all by default: one tap or Enter keeps it). A waitlisted
// guest's dialog starts on Cancel, so a second Enter or tap never checks them in by accident.
import { h } from "../core/dom.js";
import { formatNumber, t } from "../core/i18n.js";
import { named } from "../shared/names.js";
import { isWaitlisted } from "./list.js";

// Resolves to the number of guests who came (a number), `undefined` to check in with nothing to ask about, or
// null when the door cancelled. Asks nothing (resolves at once) for an expected guest who RSVP'd alone.
export function askArrival({ guest, rsvp }) {
  const waitlisted = isWaitlisted(rsvp);
  const count = rsvp.guests_count || 0;
  if (!waitlisted && !count) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let result = null;
    const close = (value) => {
      result = value;
      dialog.close();
    };
    const question = count ? h("p", { id: "heads-question" }, t("door.headsQuestion", { count })) : null;
    const choices = count
      ? h(
          "div",
          { class: "heads-choices", role: "group", "aria-labelledby": "heads-question" },
          Array.from({ length: count + 1 }, (_, n) =>
            h(
              "button",
              {
                type: "button",
                class: n === count ? "primary" : "secondary",
                "aria-label": t("door.headsCount", { count: n }),
                dataset: { brought: String(n) },
                onclick: () => close(n),
              },
              formatNumber(n),
            ),
          ),
        )
      : null;
    const cancel = h(
      "button",
      { type: "button", class: "secondary", onclick: () => close(null) },
      t("dialog.cancel"),
    );
    const confirm = count
      ? null
      : h(
          "button",
          { type: "button", class: "primary", onclick: () => close(undefined) },
          t("door.checkInAnyway"),
        );
    const dialog = h(
      "dialog",
      { class: waitlisted ? "heads waitlisted" : "heads", "aria-labelledby": "heads-title" },
      h(
        "h2",
        { id: "heads-title" },
        waitlisted
          ? t("door.waitlistTitle", { guest: named(guest) })
          : t("door.headsTitle", { guest: named(guest) }),
      ),
      waitlisted ? h("p", {}, t("door.waitlistText")) : null,
      question,
      choices,
      h("div", { class: "actions" }, cancel, confirm),
    );
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(result);
    });
    document.body.append(dialog);
    dialog.showModal();
    (waitlisted ? cancel : choices.lastChild).focus();
  });
}
