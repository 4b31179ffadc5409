// "New meetup" from a file (POST .../meetups/import): drop or pick the attendee list, see the preview, name
// the meetup (or paste the event's page and the platform names it), import, and land on its door.
import { api } from "../core/api.js";
import { busy, field, h, toast } from "../core/dom.js";
import { t } from "../core/i18n.js";
import { limits } from "../core/openapi.js";
import { doorHash, orgPath } from "../core/session.js";
import { filePicker, previewer, reportView, sources } from "../shared/import.js";

// An ISO instant as a datetime-local input's value, in the device's time zone (the venue's).
function localInput(iso) {
  const moment = new Date(iso);
  return new Date(moment.getTime() - moment.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
}

export async function fileForm(ctx) {
  const limit = await limits("import_meetup");
  const errors = h("div");
  const slot = h("div", { class: "import-preview", "aria-live": "polite" });
  const help = sources();
  const submit = h("button", { type: "submit", class: "primary", disabled: true }, t("import.create"));
  const form = h("form", { class: "stack", novalidate: true },
    field(t("import.eventUrl"), { name: "platform_url", type: "url", ...limit.platform_url, placeholder: "https://…",
      autocomplete: "off", spellcheck: "false" }, t("import.eventUrlHint")),
    field(t("import.meetupName"), { name: "name", ...limit.name, autocomplete: "off" }),
    field(t("import.date"), { name: "date", type: "datetime-local" }),
    errors, h("div", { class: "actions" }, submit));
  let file = null, columns = "";
  const values = () => {
    const { platform_url: url, name, date } = form.elements;
    return { platform_url: url.value.trim(), name: name.value.trim(), date: date.value ? new Date(date.value).toISOString() : "", columns };
  };
  const preview = previewer(slot, (answer) => reportView(answer.import, { onColumns: (value) => { columns = value; refresh(); } }));
  async function refresh() {
    if (!file) return;
    submit.disabled = true;
    const answer = await preview(() => api.upload(orgPath("/meetups/import?preview=true"), file, values()));
    if (!answer) return;
    submit.disabled = false;
    const { name, date } = form.elements; // what the event's page gave, where the person typed nothing
    if (!name.value.trim() && answer.event.name) name.value = answer.event.name;
    if (!date.value && answer.event.date) date.value = localInput(answer.event.date);
  }
  form.elements.platform_url.addEventListener("change", refresh);
  const picker = filePicker((chosen) => {
    file = chosen;
    columns = "";
    help.hidden = true;
    refresh();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!file) return;
    busy(submit, errors, async () => {
      const answer = await api.upload(orgPath("/meetups/import"), file, values());
      toast(t("import.created", { name: answer.meetup.name, count: answer.meetup.counts.rsvps }));
      ctx.navigate(doorHash(answer.meetup.org_id, answer.meetup.id));
    });
  });
  return h("div", { class: "stack from-file" }, picker, help, slot, form);
}
