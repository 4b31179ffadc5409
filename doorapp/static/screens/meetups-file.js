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

// Tonight at 19:00, in the device's time zone: most files are read on the day of their meetup.
function tonight() {
  const evening = new Date();
  evening.setHours(19, 0, 0, 0);
  return localInput(evening.toISOString());
}

function startOfToday() {
  const today = new Date();
  today.setHours(0, 0, 0, 0);
  return today;
}

export async function fileForm(ctx) {
  const limit = await limits("import_meetup");
  const errors = h("div");
  const slot = h("div", { class: "import-preview", "aria-live": "polite" });
  const help = sources();
  const submit = h("button", { type: "submit", class: "primary", disabled: true }, t("import.create"));
  const past = h("div", { class: "alert warn", hidden: true }, t("import.pastDate"));
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    field(
      t("import.eventUrl"),
      {
        name: "platform_url",
        type: "url",
        ...limit.platform_url,
        placeholder: "https://…",
        autocomplete: "off",
        spellcheck: "false",
      },
      t("import.eventUrlHint"),
    ),
    field(t("import.meetupName"), { name: "name", ...limit.name, autocomplete: "off" }),
    field(t("import.date"), { name: "date", type: "datetime-local", value: tonight() }, t("import.dateHint")),
    past,
    errors,
    h("div", { class: "actions" }, submit),
  );
  // a date gone by makes every guest not checked in a no-show at once: said before the import, not after
  const sayIfPast = () => {
    past.hidden = !form.elements.date.value || new Date(form.elements.date.value) >= startOfToday();
  };
  form.elements.date.addEventListener("input", sayIfPast);
  let file = null,
    columns = "";
  // the date shown is sent once typed, or on import: a preview without it learns the event page's date
  const values = (final = false) => {
    const { platform_url: url, name, date } = form.elements;
    const sent = date.value && (final || date.dataset.touched) ? new Date(date.value).toISOString() : "";
    return { platform_url: url.value.trim(), name: name.value.trim(), date: sent, columns };
  };
  const preview = previewer(slot, (answer) =>
    reportView(answer.import, {
      onColumns: (value) => {
        columns = value;
        refresh();
      },
    }),
  );
  async function refresh() {
    if (!file) return;
    submit.disabled = true;
    const answer = await preview(() => api.upload(orgPath("/meetups/import?preview=true"), file, values()));
    if (!answer) return;
    submit.disabled = false;
    const { name, date } = form.elements; // what the event's page gave, where the person typed nothing
    if (!name.value.trim() && answer.event.name) name.value = answer.event.name;
    if (!date.dataset.touched && answer.event.date) date.value = localInput(answer.event.date);
    sayIfPast();
  }
  form.elements.platform_url.addEventListener("change", refresh);
  form.elements.date.addEventListener("input", () => {
    form.elements.date.dataset.touched = "1";
  });
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
      const answer = await api.upload(orgPath("/meetups/import"), file, values(true));
      toast(t("import.created", { name: answer.meetup.name, count: answer.meetup.counts.rsvps }));
      ctx.navigate(doorHash(answer.meetup.org_id, answer.meetup.id));
    });
  });
  return h("div", { class: "stack from-file" }, picker, help, slot, form);
}
