// An organization's notice to the people at its door ("How this organization uses your data"), as it wrote
// it, folded: the door screen shows it under the meetup's title, a door pass's pairing page before the door.
import { h } from "../core/dom.js";
import { t } from "../core/i18n.js";

export const noticeDetails = (notice, open = false) =>
  h(
    "details",
    { class: "notice", open },
    h("summary", {}, t("privacy.noticeTitle")),
    h("p", { class: "notice-text" }, notice),
  );
