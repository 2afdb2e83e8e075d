export { sessionRepoConformance } from "./storage/conformance.js";
