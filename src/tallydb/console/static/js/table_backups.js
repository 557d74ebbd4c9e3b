// The Backups tab: on-demand backups (CreateBackup, ListBackups, restore under
// a new name with RestoreTableFromBackup, DeleteBackup) and point-in-time
// recovery's switch (UpdateContinuousBackups).
import { useEffect, useState } from "../vendor/htm-preact-3.1.1.js";
import { call } from "./api.js";
import { CodeTabs, ErrorBox, Fit, html, href, useAction } from "./ui.js";
import { bytes } from "./values.js";

const stamp = () => new Date().toISOString().replace(/[:.]/g, "-").slice(0, 19);

function Restore({ backup, onRestored }) {
  const [name, setName] = useState(`${backup.TableName}-restored`);
  const [restored, setRestored] = useState(null);
  const { busy, error, run } = useAction();
  const request = { TargetTableName: name, BackupArn: backup.BackupArn };
  const submit = (event) => {
    event.preventDefault();
    run(async () => {
      const answer = await call("RestoreTableFromBackup", request);
      setRestored(answer.TableDescription.TableName);
      onRestored();
    });
  };
  return html`<form class="row wrap restore" onSubmit=${submit} aria-label=${`Restore ${backup.BackupName}`}>
    <label>New table name <input name="TargetTableName" required value=${name} onInput=${(e) => setName(e.target.value)} /></label>
    <button type="submit" class="small primary" disabled=${busy}>Restore</button>
    ${restored && html`<span class="notice" role="status">Restored as <a href=${href("tables", restored)}>${restored}</a>.</span>`}
    <${ErrorBox} error=${error} />
  </form>`;
}

function Pitr({ table }) {
  const [state, setState] = useState(null);
  const { busy, error, run } = useAction();
  const load = () => run(async () => {
    const answer = await call("DescribeContinuousBackups", { TableName: table });
    setState(answer.ContinuousBackupsDescription.PointInTimeRecoveryDescription);
  });
  useEffect(() => { load(); }, [table]);
  const on = state && state.PointInTimeRecoveryStatus === "ENABLED";
  const request = { TableName: table, PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: !on } };
  return html`<div class="card">
    <h2>Point-in-time recovery</h2>
    ${state && html`<p>${on ? html`Enabled: restorable from ${new Date(state.EarliestRestorableDateTime * 1000).toLocaleString()}
        to ${new Date(state.LatestRestorableDateTime * 1000).toLocaleString()}.` : "Disabled."}</p>`}
    <div class="row"><button type="button" disabled=${busy || !state}
      onClick=${() => run(async () => { await call("UpdateContinuousBackups", request); await load(); })}>
      ${on ? "Disable point-in-time recovery" : "Enable point-in-time recovery"}</button></div>
    <${ErrorBox} error=${error} />
    ${on && html`<${RestoreToTime} table=${table} />`}
  </div>`;
}

/** RestoreTableToPointInTime under a new name: to the latest restorable time, or a given one. */
function RestoreToTime({ table }) {
  const [name, setName] = useState(`${table}-at`);
  const [when, setWhen] = useState("");
  const [restored, setRestored] = useState(null);
  const { busy, error, run } = useAction();
  const request = { SourceTableName: table, TargetTableName: name,
    ...(when ? { RestoreDateTime: new Date(when).getTime() / 1000 } : { UseLatestRestorableTime: true }) };
  const submit = (event) => {
    event.preventDefault();
    run(async () => setRestored((await call("RestoreTableToPointInTime", request)).TableDescription.TableName));
  };
  return html`<form class="row wrap restore" onSubmit=${submit} aria-label="Restore to a point in time">
    <label>New table name <input name="PitrTargetTableName" required value=${name} onInput=${(e) => setName(e.target.value)} /></label>
    <label>As it was at (empty: the latest) <input type="datetime-local" step="1" name="RestoreDateTime" value=${when}
      onInput=${(e) => setWhen(e.target.value)} /></label>
    <button type="submit" class="small primary" disabled=${busy}>Restore to this time</button>
    ${restored && html`<span class="notice" role="status">Restored as <a href=${href("tables", restored)}>${restored}</a>.</span>`}
    <${ErrorBox} error=${error} />
  </form>`;
}

export function BackupsTab({ table }) {
  const [backups, setBackups] = useState(null);
  const [name, setName] = useState(`${table}-${stamp()}`);
  const [restoring, setRestoring] = useState(null);
  const [created, setCreated] = useState("");
  const list = useAction();
  const create = useAction();
  const load = () => list.run(async () => {
    const found = [];
    let start;
    do {
      const page = await call("ListBackups", { TableName: table, ...(start ? { ExclusiveStartBackupArn: start } : {}) });
      found.push(...page.BackupSummaries);
      start = page.LastEvaluatedBackupArn;
    } while (start);
    setBackups(found);
  });
  useEffect(() => { load(); }, [table]);
  const request = { TableName: table, BackupName: name };
  const submit = (event) => {
    event.preventDefault();
    create.run(async () => {
      const answer = await call("CreateBackup", request);
      setCreated(`Backup ${answer.BackupDetails.BackupName} is ${answer.BackupDetails.BackupStatus}.`);
      setName(`${table}-${stamp()}`);
      await load();
    });
  };
  const remove = (backup) => list.run(async () => { await call("DeleteBackup", { BackupArn: backup.BackupArn }); await load(); });
  return html`<section aria-label="Backups">
    <form class="card" onSubmit=${submit} aria-labelledby="backup-title">
      <h2 id="backup-title">Back up now</h2>
      <div class="row wrap"><label class="grow">Backup name <input name="BackupName" required value=${name}
        onInput=${(e) => setName(e.target.value)} /></label>
        <button type="submit" class="primary" disabled=${create.busy}>Create backup</button></div>
      ${created && html`<p class="notice" role="status">${created}</p>`}
      <${ErrorBox} error=${create.error} />
      <details><summary>As code</summary><${CodeTabs} operation="CreateBackup" request=${request} /></details>
    </form>
    <${ErrorBox} error=${list.error} />
    ${backups && (backups.length === 0 ? html`<p class="empty">No backups of this table.</p>`
      : html`<div class="scroll"><table class="grid" aria-label="Backups">
        <thead><tr><th>Name</th><th>Created</th><th>Status</th><th class="num">Size</th><th><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>${backups.map((b) => html`<tr key=${b.BackupArn} data-backup=${b.BackupName}>
          <td><${Fit} text=${b.BackupName} /></td>
          <td>${new Date(b.BackupCreationDateTime * 1000).toLocaleString()}</td>
          <td>${b.BackupStatus}</td><td class="num">${bytes(b.BackupSizeBytes)}</td>
          <td class="actions"><button type="button" class="small" aria-label=${`Restore ${b.BackupName}…`}
              onClick=${() => setRestoring(restoring === b.BackupArn ? null : b.BackupArn)}>Restore…</button>
            <button type="button" class="small danger-outline" aria-label=${`Delete backup ${b.BackupName}`}
              onClick=${() => remove(b)}>Delete</button></td>
        </tr>`)}</tbody></table></div>`)}
    ${backups && backups.filter((b) => b.BackupArn === restoring).map((b) => html`<div class="card">
      <h2>Restore ${b.BackupName} under a new name</h2><${Restore} backup=${b} onRestored=${load} /></div>`)}
    <${Pitr} table=${table} />
  </section>`;
}
