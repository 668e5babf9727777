/** A PostgreSQL schema step: its statements name the tables of one (validated, double-quoted) schema. */
export interface PostgresMigration {
  /** The version this step brings the schema to. */
  readonly version: number;
  /** Short kebab-case name, recorded beside the version. */
  readonly name: string;
  /** The step's DDL for the schema `s` (already double-quoted). */
  statements(s: string): string[];
}
