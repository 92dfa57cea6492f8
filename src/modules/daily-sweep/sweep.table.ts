export interface SweepRunTable {
  day: string;
  locked_by: string | null;
  locked_until: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface SweepOccurrenceTable {
  occurrence_key: string;
  created_at: string;
}
