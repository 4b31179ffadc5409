// Download CSV, asked first: for a spreadsheet (the organization's local times, the chosen language's words,
// the separator that spreadsheet splits on when the file is double-clicked) or for a program (the API's
// words, UTC). An admin sets the organization's time zone here too; Door keeps it for every such file.
import { api, download, query } from "../core/api.js";
import { ask, field, h } from "../core/dom.js";
import { lang, t } from "../core/i18n.js";
import { limits } from "../core/openapi.js";
import { orgPath } from "../core/session.js";

export async function downloadCsv(path, params = {}) {
  const org = await api.get(orgPath());
  const here = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const style = field(t("csv.style"), {
    tag: "select",
    name: "style",
    options: [
      ["people", t("csv.forPeople")],
      ["data", t("csv.forPrograms")],
    ],
  });
  const sep = field(
    t("csv.separator"),
    {
      tag: "select",
      name: "sep",
      options: [
        ["semicolon", t("csv.semicolon")],
        ["comma", t("csv.comma")],
      ],
    },
    t("csv.separatorHint"),
  );
  sep.querySelector("select").value = lang === "es" ? "semicolon" : "comma";
  const zone = field(
    t("csv.timeZone"),
    {
      name: "time_zone",
      value: org.time_zone || here,
      list: "csv-zones",
      autocomplete: "off",
      spellcheck: "false",
      ...(await limits("update_organization_settings")).time_zone,
    },
    t("csv.timeZoneHint"),
  );
  const input = zone.querySelector("input");
  // the organization keeps another zone than this browser's (UTC, say, on a laptop at the venue):
  // offer this one
  const offer =
    here && org.time_zone && org.time_zone !== here
      ? h(
          "button",
          {
            type: "button",
            class: "secondary small use-zone",
            onclick: () => {
              input.value = here;
              offer.hidden = true;
            },
          },
          t("csv.useThisZone", { zone: here }),
        )
      : null;
  const people = h(
    "div",
    { class: "stack" },
    sep,
    zone,
    offer,
    h(
      "datalist",
      { id: "csv-zones" },
      zones.map((name) => h("option", { value: name })),
    ),
  );
  style.querySelector("select").addEventListener("change", (event) => {
    people.hidden = event.target.value !== "people";
  });
  return ask({
    title: t("csv.title"),
    confirm: t("common.downloadCsv"),
    extra: h("div", { class: "stack csv-options" }, style, people),
    action: async () => {
      const chosen = style.querySelector("select").value;
      if (chosen === "data") return download(path + query({ ...params, style: "data" }));
      const timeZone = zone.querySelector("input").value.trim();
      if (timeZone !== (org.time_zone || "")) await api.patch(orgPath("/settings"), { time_zone: timeZone });
      return download(
        path + query({ ...params, style: "people", lang, sep: sep.querySelector("select").value }),
      );
    },
  });
}
