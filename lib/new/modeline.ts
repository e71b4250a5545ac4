import { schemaModeline, shippedSchemaUrl } from '../config/schema.js';

/** The first line of a scenario file svc writes: points YAML editors at the schema svc's package ships. */
export const SCHEMA_MODELINE = schemaModeline(shippedSchemaUrl());
