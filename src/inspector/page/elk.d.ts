// Types of `./elk.js`, which has no source here: the server answers `/assets/elk.js` with elkjs's
// browser bundle wrapped as an ES module whose default export is the ELK class (see page-assets.ts).
import type { ELKConstructorArguments, ELK as ElkEngine } from "elkjs/lib/elk-api.js";

declare const ELK: new (args?: ELKConstructorArguments) => ElkEngine;
export default ELK;
