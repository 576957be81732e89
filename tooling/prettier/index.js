// The one Prettier configuration (root package.json points here). Prettier's defaults otherwise: double quotes,
// semicolons, trailing commas; 120 columns because the code base names things in full.
/** @type {import("prettier").Config} */
const config = {
  printWidth: 120,
};

export default config;
