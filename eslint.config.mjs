// ESLint over the browser app (tests/test_lint.py runs it; .ci/run installs the pinned version). The
// complexity ceiling is the Python side's (pyproject.toml: ruff's mccabe, 10), cyclomatic as mccabe's is;
// ESLint also counts &&, ||, ?? and ?. as branches. Browser names the code uses are listed here: a new one
// is added to the list, so a typo is never taken for a global.
const browser = [
  "AbortController", "CustomEvent", "FormData", "IDBKeyRange", "Node", "TextDecoder", "URL",
  "URLSearchParams", "atob", "clearInterval", "clearTimeout", "crypto", "document", "fetch", "history",
  "indexedDB", "localStorage", "location", "navigator", "sessionStorage", "setInterval", "setTimeout",
  "window",
];

export default [
  { ignores: ["doorapp/static/swagger-ui/"] }, // vendored
  {
    files: ["doorapp/static/**/*.js"],
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: "module",
      globals: Object.fromEntries(browser.map((name) => [name, "readonly"])),
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      complexity: ["error", 10],
      "no-undef": "error",
      // a const or let used before its line in the same scope throws (functions and outer names may be)
      "no-use-before-define": ["error", { functions: false, classes: false, variables: false }],
      "no-unused-vars": "error",
      eqeqeq: "error",
      "no-var": "error",
      "prefer-const": "error",
      "no-const-assign": "error",
      "no-import-assign": "error",
      "no-dupe-keys": "error",
      "no-dupe-else-if": "error",
      "no-duplicate-case": "error",
      "no-duplicate-imports": "error",
      "no-fallthrough": "error",
      "no-unreachable": "error",
      "no-self-assign": "error",
      "no-self-compare": "error",
      "no-cond-assign": "error",
      "no-constant-condition": "error",
      "no-unsafe-finally": "error",
      "no-unsafe-negation": "error",
      "no-async-promise-executor": "error",
      "no-promise-executor-return": "error",
      "no-shadow-restricted-names": "error",
      "no-unused-private-class-members": "error",
      "use-isnan": "error",
      "valid-typeof": "error",
      "no-eval": "error",
      "no-implied-eval": "error",
    },
  },
  { files: ["doorapp/static/docs.js"], languageOptions: { globals: { SwaggerUIBundle: "readonly" } } },
];
