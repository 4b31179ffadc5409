// Guest lists from files (POST .../meetups/import and .../meetups/{id}/import): the file picker (one big tap
// target that also takes a dropped file), where to get each file, the preview of what an import will do
// (?preview=true) and the dialog that updates a meetup from a newer file. The server reads the file and
// decides everything; this only shows its report.
import { api, ApiProblem } from "../core/api.js";
import { ask, clear, h, toast } from "../core/dom.js";
import { has, lang, problemText, t, tn } from "../core/i18n.js";
import { orgPath } from "../core/session.js";

// What the phone's file picker offers first (a file of another kind can still be chosen or dropped)
const ACCEPT = [
  ".csv",
  ".tsv",
  ".txt",
  ".xls",
  ".xlsx",
  "text/csv",
  "text/plain",
  "text/tab-separated-values",
  "application/vnd.ms-excel",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
].join(",");
const ROLES = ["id", "email", "status", "guests"]; // the columns a report names besides the name's

// A big "choose a file" target that a file can be dropped on; `onFile(file)` gets the one chosen.
export function filePicker(onFile) {
  const input = h("input", { type: "file", class: "file-input", accept: ACCEPT });
  const title = h("span", { class: "drop-title" }, t("import.choose"));
  const more = h("span", { class: "muted drop-hint" }, t("import.orDrop"));
  const zone = h("label", { class: "drop-zone" }, input, title, more);
  const take = (file) => {
    if (!file) return;
    clear(title, file.name);
    clear(more, t("import.another"));
    zone.classList.add("chosen");
    onFile(file);
  };
  input.addEventListener("change", () => take(input.files[0]));
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    take(event.dataTransfer.files[0]);
  });
  return zone;
}

// Where each file comes from: shown until a file is chosen.
export function sources() {
  return h(
    "div",
    { class: "sources" },
    h("p", { class: "hint" }, t("import.whereFrom")),
    h(
      "ul",
      { class: "hint" },
      ["import.fromMeetup", "import.fromLuma", "import.fromSheet"].map((key) => h("li", {}, t(key))),
    ),
  );
}

// Why a file was refused, in the chosen language: the server's English detail says what it found; other
// languages word its `found`.
export function fileProblem(error) {
  if (error.code === "unreadable_file" && lang !== "en" && has(`import.found.${error.found}`)) {
    return `${t(`import.found.${error.found}`)} ${t("import.uploadInstead")}`;
  }
  return problemText(error);
}

// The rows read as guests; the rest of the rows were left out,
// each a problem (past 200, one line says how many more).
const entries = (report) => report.expected + report.waitlisted + report.not_expected;

function problemLine(problem, report) {
  if (problem.row === null) {
    return t("import.moreProblems", { count: report.rows - entries(report) - (report.problems.length - 1) });
  }
  const why = has(`import.problem.${problem.kind}`)
    ? t(`import.problem.${problem.kind}`, problem)
    : problem.message;
  return t("import.problemRow", { row: problem.row, problem: why });
}

function tiles(pairs) {
  return h(
    "div",
    { class: "tiles" },
    pairs.map(([key, value, kind]) =>
      h(
        "div",
        { class: `tile ${kind || ""}`, dataset: { count: key } },
        h("span", { class: "value" }, String(value)),
        h("span", { class: "label" }, t(`import.count.${key}`, { count: value })),
      ),
    ),
  );
}

// The columns used, and where the file had another name column, a choice: `onColumns(value)` previews again.
function columnsLine(report, onColumns) {
  const name = report.columns.name.join(" + ");
  const others = ROLES.filter((role) => report.columns[role]).map((role) =>
    t("import.columnRole", { column: report.columns[role], role: t(`import.role.${role}`) }),
  );
  const line = h(
    "p",
    {},
    ...tn("import.namesFrom", { column: h("strong", {}, name) }),
    others.length ? ` ${t("import.alsoRead", { columns: others.join(", ") })}` : "",
  );
  if (!report.other_name_columns.length || !onColumns) return line;
  const options = [report.columns.name, ...report.other_name_columns];
  const select = h(
    "select",
    { "aria-label": t("import.pickColumns"), onchange: () => onColumns(select.value) },
    options.map((columns, i) =>
      h("option", { value: columns.join(","), selected: i === 0 }, columns.join(" + ")),
    ),
  );
  return h(
    "div",
    { class: "field" },
    line,
    h("div", { class: "alert warn" }, t("import.ambiguous", { column: name })),
    h("label", { class: "inline" }, t("import.pickColumns"), select),
  );
}

// Who an update adds, cancels, updates and keeps (arrived, no longer in the file), by name (the server sends
// at most 50 of each; the count says the rest).
function whoLists(report) {
  const lists = ["added", "cancelled", "updated", "kept"]
    .filter((key) => report.names[key].length)
    .map((key) => {
      const more = report[key] - report.names[key].length;
      return h(
        "div",
        { class: "who-list", dataset: { who: key } },
        h("p", { class: "hint" }, t(`import.who.${key}`)),
        h(
          "ul",
          {},
          report.names[key].map((name) => h("li", {}, name)),
        ),
        more > 0 ? h("p", { class: "hint" }, t("import.whoMore", { count: more })) : null,
      );
    });
  return lists.length ? h("div", { class: "who-lists" }, lists) : null;
}

// The preview of an import: the format recognised, the columns used, the counts (an update's with who), the
// first rows, every problem.
export function reportView(report, { update = false, onColumns } = {}) {
  return h(
    "div",
    { class: "import-report stack", dataset: { format: report.format } },
    h(
      "p",
      { class: "format" },
      ...tn("import.recognised", { format: h("strong", {}, t(`import.format.${report.format}`)) }),
      " ",
      t("import.rows", { count: report.rows }),
    ),
    columnsLine(report, onColumns),
    tiles(reportCounts(report, update)),
    update ? whoLists(report) : null,
    update
      ? tiles([
          ["expected", report.expected],
          ["waitlisted", report.waitlisted],
          ["not_expected", report.not_expected],
        ])
      : null,
    report.first_rows.length
      ? h(
          "div",
          { class: "table-scroll" },
          h("p", { class: "hint" }, t("import.firstRows")),
          firstRows(report),
        )
      : null,
    formulas(report),
    report.problems.length
      ? h(
          "div",
          { class: "alert warn problems" },
          t("import.problems", { count: report.rows - entries(report) }),
          h(
            "ul",
            {},
            report.problems.map((problem) => h("li", {}, problemLine(problem, report))),
          ),
        )
      : null,
  );
}

// The counts an import will make, or an update's changes.
function reportCounts(report, update) {
  const counts = update
    ? [
        ["added", report.added, "ok"],
        ["cancelled", report.cancelled, "danger"],
        ["updated", report.updated],
        ["unchanged", report.unchanged],
        ...(report.kept ? [["kept", report.kept, "ok"]] : []),
      ]
    : [
        ["expected", report.expected, "ok"],
        ["waitlisted", report.waitlisted],
        ["not_expected", report.not_expected],
      ];
  if (report.checked_in) counts.push(["checked_in", report.checked_in, "ok"]); // Luma's door let them in
  return counts;
}

// The file's first rows, as Door read them.
function firstRows(report) {
  return h(
    "table",
    { class: "first-rows" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["import.row", "import.name", "import.status", "import.guests"].map((key) =>
          h("th", { scope: "col" }, t(key)),
        ),
      ),
    ),
    h(
      "tbody",
      {},
      report.first_rows.map((row) =>
        h(
          "tr",
          {},
          h("td", {}, String(row.row)),
          h("td", { class: "name" }, row.name),
          h("td", {}, t(`import.status.${row.status}`)),
          h("td", {}, row.guests ? `+${row.guests}` : ""),
        ),
      ),
    ),
  );
}

// Cells that held formulas (a spreadsheet's), which Door read as text.
function formulas(report) {
  if (!report.formulas.length) return null;
  return h(
    "div",
    { class: "alert warn formulas" },
    t("import.formulas", { count: report.formulas.length }),
    h(
      "ul",
      {},
      report.formulas.map((found) =>
        h("li", {}, t("import.problemRow", { row: found.row, problem: found.name })),
      ),
    ),
  );
}

// A preview that follows the latest choice: preview(send) runs `send()` and draws its report in `slot`;
// an answer overtaken by a newer preview is dropped.
export function previewer(slot, draw) {
  let fetchId = 0;
  return async (send) => {
    const id = ++fetchId;
    clear(
      slot,
      h("div", { class: "progress", role: "progressbar", "aria-label": t("import.reading") }, h("span")),
    );
    try {
      const answer = await send();
      if (id === fetchId) clear(slot, draw(answer));
      return id === fetchId ? answer : null;
    } catch (error) {
      if (id === fetchId) clear(slot, h("div", { class: "alert error", role: "alert" }, fileProblem(error)));
      return null;
    }
  };
}

// "Update from a newer file": pick it, see what will be added, cancelled and updated, confirm. The answer
// ({meetup, import}) once done, or null when the user changed their mind.
export async function updateFromFile(meetup) {
  const path = orgPath(`/meetups/${meetup.id}/import`, { id: meetup.org_id });
  let file = null,
    columns = "",
    result = null;
  const slot = h("div", { class: "import-preview", "aria-live": "polite" });
  const help = sources();
  const preview = previewer(slot, (answer) => reportView(answer.import, { update: true, onColumns: again }));
  function again(value) {
    columns = value;
    preview(() => api.upload(`${path}?preview=true`, file, { columns }));
  }
  const picker = filePicker((chosen) => {
    file = chosen;
    help.hidden = true;
    again("");
  });
  const done = await ask({
    title: t("import.updateTitle", { name: meetup.name }),
    message: t("import.updateText"),
    extra: h("div", { class: "stack" }, picker, help, slot),
    confirm: t("import.updateConfirm"),
    action: async () => {
      if (!file) throw new ApiProblem({ detail: t("import.chooseFirst") });
      result = await api.upload(path, file, { columns });
    },
  });
  if (!done) return null;
  toast(
    t("import.updated", {
      added: result.import.added,
      cancelled: result.import.cancelled,
      updated: result.import.updated,
    }),
  );
  return result;
}
