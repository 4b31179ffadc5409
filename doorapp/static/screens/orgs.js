// Organizations (site admins): list, create, rename.
import { api } from "../core/api.js";
import { ask, busy, clear, field, formValues, h, toast } from "../core/dom.js";
import { limits } from "../core/openapi.js";
import { setOrg } from "../core/session.js";
import { t } from "../core/i18n.js";

export async function list(view, params, ctx) {
  const slot = h("div");
  view.append(h("section", { class: "panel" }, h("h1", {}, t("nav.orgs")), slot), await createForm(ctx));
  const { organizations } = await api.get("/organizations/");
  if (!ctx.alive) return;
  clear(
    slot,
    organizations.length
      ? h(
          "ul",
          { class: "rows" },
          organizations.map((o) =>
            h(
              "li",
              { class: "row", dataset: { org: o.id } },
              h(
                "div",
                { class: "who" },
                h("span", { class: "name" }, o.name),
                h("span", { class: "username" }, o.slug),
              ),
              h(
                "div",
                { class: "act" },
                h(
                  "button",
                  {
                    type: "button",
                    class: "primary",
                    "aria-label": t("orgs.openNamed", { name: o.name }),
                    onclick: async () => {
                      await ctx.refresh();
                      setOrg(o.id);
                      ctx.navigate("#/meetups");
                    },
                  },
                  t("meetups.open"),
                ),
                h(
                  "button",
                  {
                    type: "button",
                    class: "secondary",
                    "aria-label": t("orgs.editNamed", { name: o.name }),
                    onclick: () => rename(o, ctx),
                  },
                  t("orgs.edit"),
                ),
              ),
            ),
          ),
        )
      : h("p", { class: "muted" }, t("orgs.empty")),
  );
}

async function rename(org, ctx) {
  const name = await ask({
    title: t("orgs.editTitle", { name: org.name }),
    input: {
      label: t("field.name"),
      required: true,
      value: org.name,
      limits: (await limits("update_organization")).name,
    },
    confirm: t("orgs.save"),
    action: (value) => api.patch(`/organizations/${org.id}`, { name: value }),
  });
  if (name) {
    toast(t("orgs.saved"));
    await ctx.refresh();
    ctx.navigate("#/orgs");
  }
}

async function createForm(ctx) {
  const limit = await limits("create_organization");
  const errors = h("div");
  const submit = h("button", { type: "submit", class: "primary" }, t("orgs.create"));
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    field(t("field.name"), { name: "name", required: true, ...limit.name, autocomplete: "off" }),
    field(
      t("field.slug"),
      {
        name: "slug",
        required: true,
        ...limit.slug,
        autocomplete: "off",
        autocapitalize: "none",
        spellcheck: "false",
      },
      t("orgs.slugHint"),
    ),
    errors,
    h("div", { class: "actions" }, submit),
  );
  form.elements.name.addEventListener("input", () => {
    if (!form.elements.slug.dataset.touched) {
      form.elements.slug.value = form.elements.name.value
        .normalize("NFD")
        .replace(/\p{M}/gu, "")
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, limit.slug.maxlength);
    }
  });
  form.elements.slug.addEventListener("input", () => {
    form.elements.slug.dataset.touched = "1";
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const { name, slug } = formValues(form);
    busy(submit, errors, async () => {
      // in the time zone of the browser that makes it: its files for people give the venue's times
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      const org = await api.post("/organizations/", {
        name: name.trim(),
        slug: slug.trim(),
        ...(zone ? { time_zone: zone } : {}),
      });
      await ctx.refresh();
      setOrg(org.id);
      toast(t("orgs.created", { name: org.name }));
      ctx.navigate("#/meetups");
    });
  });
  return h("section", { class: "panel" }, h("h2", {}, t("orgs.new")), form);
}
