module.exports = [
  {
    files: ["src/**/*.js"],
    languageOptions: { sourceType: "commonjs", globals: { console: "readonly", module: "writable" } },
    rules: { "no-unused-vars": "error", "no-undef": "error", eqeqeq: "warn", "prefer-const": "warn" },
  },
];
