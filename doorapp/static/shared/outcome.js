// A guest's outcome of a meetup as a badge (the summary, a guest's history).
import { h } from "../core/dom.js";
import { t } from "../core/i18n.js";

// Outcome -> [catalogue key, badge class]; an outcome this version does not know is shown as it comes.
const OUTCOMES = {
  ATTENDED: ["outcome.attended", "ok"],
  WALK_IN: ["outcome.walkIn", "ok"],
  NO_SHOW: ["outcome.noShow", "danger"],
  EXCUSED_ABSENCE: ["outcome.excused", "warn"],
  CANCELLED: ["outcome.cancelled", ""],
  WAITLIST: ["outcome.waitlist", ""],
  NOT_CHECKED_IN: ["outcome.notCheckedIn", ""],
  UPCOMING: ["outcome.upcoming", ""],
  MEETUP_CANCELLED: ["outcome.meetupCancelled", ""],
};

export const outcomeWord = (outcome) => (OUTCOMES[outcome] ? t(OUTCOMES[outcome][0]) : outcome);

export function outcomeBadge(outcome) {
  const [, kind] = OUTCOMES[outcome] || [null, ""];
  return h("span", { class: `badge ${kind}`, dataset: { outcome } }, outcomeWord(outcome));
}
