module.exports = { roots: ["<rootDir>/jest"] };
