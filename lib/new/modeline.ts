export const SCHEMA_MODELINE = '# yaml-language-server: $schema=https://raw.githubusercontent.com/svc-dev/svc/main/schema/scenario.schema.json';
