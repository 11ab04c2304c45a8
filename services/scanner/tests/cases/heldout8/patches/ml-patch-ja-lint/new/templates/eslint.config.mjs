import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";

export default tseslint.config(
  // ビルド成果物・生成コードはリントの対象外（無視する）
  { ignores: ["dist/**", "build/**", "coverage/**", "**/*.generated.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
);
