// Public surface of the fake apiserver: see server.ts for createFakeApiServer.

export { createFakeApiServer, type FakeApiServer, type FakeApiServerOptions, type ListHelperOptions } from "./server.ts";
export {
  ALL_FAULT_KINDS,
  SimulatedCrash,
  type Fault,
  type FaultHandle,
  type FaultKind,
  type FaultRule,
  type FaultStatus,
  type Faults,
  type RandomFaultOptions,
} from "./faults.ts";
export type { RequestInfo, RequestLog, RequestRecord, RecordFilter } from "./log.ts";
export { mulberry32, pick, randomInt, uuidFrom, type Random } from "./random.ts";
export { customResourcesFromCrd, defineCustomResource, ordinalCustomResources, type CustomResourceSpec } from "./kinds/custom.ts";
export type { Schema } from "./kinds/schema.ts";
export type { FieldError, Status, StatusCause, StatusDetails } from "./errors.ts";
export { formatTime, truncateToSecond } from "./time.ts";
export type { Obj } from "./json.ts";
