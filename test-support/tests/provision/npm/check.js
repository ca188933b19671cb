// Prints what the pinned package says of its argument: proves it is installed and importable.
const isNumber = require("is-number");
console.log(JSON.stringify({ version: require("is-number/package.json").version, isNumber: isNumber(process.argv[2]) }));
