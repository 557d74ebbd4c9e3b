// The Tags tab: ListTagsOfResource, TagResource and UntagResource on the table's ARN.
import { useEffect, useState } from "../vendor/htm-preact-3.1.1.js";
import { call } from "./api.js";
import { CodeTabs, ErrorBox, Fit, html, useAction } from "./ui.js";

export function TagsTab({ t }) {
  const arn = t.TableArn;
  const [tags, setTags] = useState(null);
  const [form, setForm] = useState({ key: "", value: "" });
  const { busy, error, run } = useAction();
  const load = () => run(async () => {
    const found = [];
    let token;
    do {
      const page = await call("ListTagsOfResource", { ResourceArn: arn, ...(token ? { NextToken: token } : {}) });
      found.push(...(page.Tags || []));
      token = page.NextToken;
    } while (token);
    setTags(found);
  });
  useEffect(() => { load(); }, [arn]);
  const request = { ResourceArn: arn, Tags: [{ Key: form.key, Value: form.value }] };
  const submit = (event) => {
    event.preventDefault();
    run(async () => {
      await call("TagResource", request);
      setForm({ key: "", value: "" });
      await load();
    });
  };
  const untag = (key) => run(async () => { await call("UntagResource", { ResourceArn: arn, TagKeys: [key] }); await load(); });
  return html`<section aria-label="Tags">
    ${tags && (tags.length === 0 ? html`<p class="empty">No tags.</p>`
      : html`<div class="scroll"><table class="grid" aria-label="Tags">
        <thead><tr><th>Key</th><th>Value</th><th><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>${tags.map((tag) => html`<tr key=${tag.Key} data-tag=${tag.Key}>
          <td><${Fit} text=${tag.Key} /></td><td><${Fit} text=${tag.Value} /></td>
          <td class="actions"><button type="button" class="small danger-outline" aria-label=${`Remove tag ${tag.Key}`}
            onClick=${() => untag(tag.Key)}>Remove</button></td></tr>`)}</tbody></table></div>`)}
    <form class="card" onSubmit=${submit} aria-labelledby="tag-title">
      <h2 id="tag-title">Add a tag</h2>
      <div class="row wrap">
        <label>Key <input name="Key" required value=${form.key} onInput=${(e) => setForm({ ...form, key: e.target.value })} /></label>
        <label class="grow">Value <input name="Value" value=${form.value} onInput=${(e) => setForm({ ...form, value: e.target.value })} /></label>
        <button type="submit" class="primary" disabled=${busy}>Add tag</button>
      </div>
      <${ErrorBox} error=${error} />
      <details><summary>As code</summary><${CodeTabs} operation="TagResource" request=${request} /></details>
    </form>
  </section>`;
}
