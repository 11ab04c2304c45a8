// eslint.config.mjs — org flat config
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";
import { loadOrgRules } from "./tools/eslint/org-rules-loader.mjs";

const org = await loadOrgRules();

export default tseslint.config(
  { ignores: ["dist/**", "build/**", "coverage/**", "**/*.generated.*"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { org },
    rules: {
      "org/no-floating-promise-in-handler": "error",
      "org/prefer-logger": "warn",
      "org/no-raw-sql": "error",
    },
  },
);
