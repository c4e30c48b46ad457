// Public surface of the fake apiserver: see server.ts for createFakeApiServer.

export { createFakeApiServer, type FakeApiServer, type FakeApiServerOptions } from "./server.ts";
export { SimulatedCrash } from "../faults/faults.ts";
export { mulberry32, pick, randomInt, uuidFrom } from "./random.ts";
