#!/usr/bin/env bash
# A report a contract is gated on (issue 14 items 1 and 2), under mpirun -np 2 here:
#   verify      needs --pubkey or --unsigned (exit 2 without); a fresh run directory verifies (its
#               manifest, its report files recomputed from its samples): exit 0 or 1 as the run
#               judged, --unsigned saying it proved consistency only; a copy elsewhere verifies
#               the same; a symbolic link, an unlisted file or folder in DIR is exit 2 naming it
#   tampering   one digit of one value in samples.jsonl: exit 2 naming samples.jsonl; a verdict
#               edited in report.json with the manifest updated to match: still exit 2 (recomputed)
#   signatures  keygen (key mode 0600), sign, verify --pubkey: exit 0/1 naming the key's
#               fingerprint; another key's .pub: exit 2; openssl checks the same envelope
#               (DSSE's pre-authentication encoding, Ed25519) and its subjects with sha256sum
#   judge       with the recorded criteria it rewrites the reports byte for byte (the signature
#               stays good); with other criteria it needs --out and leaves DIR alone
source "$(dirname "$0")/lib.sh"
run="$GA_TMP/run"
ga_mpirun 2 --suite quick --out "$run" >"$GA_TMP/run.log" 2>&1; rc=$?
check "the run: exit 0 or 1 ($rc)" bash -c "[ $rc -eq 0 ] || [ $rc -eq 1 ]"
check "a manifest was written" test -s "$run/manifest.json"
"$GA_BIN" verify "$run" >"$GA_TMP/v-none.log" 2>&1
check "verify with neither --pubkey nor --unsigned: exit 2 saying so" \
  bash -c "[ $? -eq 2 ] && grep -q -- '--pubkey FILE' '$GA_TMP/v-none.log' && grep -q -- '--unsigned' '$GA_TMP/v-none.log'"
"$GA_BIN" verify "$run" --unsigned >"$GA_TMP/v0.log" 2>&1; v=$?
check "verify --unsigned of the fresh run: exit $rc like the run ($v: $(tail -1 "$GA_TMP/v0.log"))" [ "$v" -eq "$rc" ]
check "  and says it proved consistency only" grep -q "consistent; not signed, or signature not checked: anyone with write access" "$GA_TMP/v0.log"
cp -r "$run" "$GA_TMP/copy"
"$GA_BIN" verify "$GA_TMP/copy" --unsigned >/dev/null 2>&1
check "a copy elsewhere verifies the same" [ $? -eq "$rc" ]
# What the run did not write is exit 2 naming it, and nothing is opened: a link to /dev/zero
# (which a digest would read for ever), an unlisted file, a folder the run did not write.
cp -r "$run" "$GA_TMP/link" && ln -s /dev/zero "$GA_TMP/link/zero.bin"
timeout 20 "$GA_BIN" verify "$GA_TMP/link" --unsigned >"$GA_TMP/v-link.log" 2>&1
check "a symbolic link in DIR: exit 2 naming it, at once" \
  bash -c "[ $? -eq 2 ] && grep -q 'TAMPERED: zero.bin: a symbolic link' '$GA_TMP/v-link.log'"
cp -r "$run" "$GA_TMP/linked" && rm "$GA_TMP/linked/report.md" && ln -s /dev/zero "$GA_TMP/linked/report.md"
timeout 20 "$GA_BIN" verify "$GA_TMP/linked" --unsigned >"$GA_TMP/v-linked.log" 2>&1
check "a listed file replaced by a link to /dev/zero: exit 2 naming it, at once" \
  bash -c "[ $? -eq 2 ] && grep -q 'TAMPERED: report.md: a symbolic link' '$GA_TMP/v-linked.log'"
cp -r "$run" "$GA_TMP/extra" && echo "vendor's note" >"$GA_TMP/extra/notes.txt" && mkdir "$GA_TMP/extra/more"
"$GA_BIN" verify "$GA_TMP/extra" --unsigned >"$GA_TMP/v-extra.log" 2>&1
check "an unlisted file and folder: exit 2 naming both" \
  bash -c "[ $? -eq 2 ] && grep -q 'TAMPERED: notes.txt: not in the manifest' '$GA_TMP/v-extra.log' && grep -q 'TAMPERED: more/: a folder the run did not write' '$GA_TMP/v-extra.log'"

cp -r "$run" "$GA_TMP/digit"
# One digit of one measured value: the first sample line with a "value", its last digit changed.
n=$(grep -n '"type":"sample"' "$GA_TMP/digit/samples.jsonl" | grep '"value":[0-9]' | head -1 | cut -d: -f1)
sed -i -E "${n}s/(\"value\":[0-9.e+-]*)([0-9])/\1X\2/; ${n}s/X0/1/; ${n}s/X([1-9])/0/" "$GA_TMP/digit/samples.jsonl"
check "one value changed (line $n)" bash -c "! cmp -s '$run/samples.jsonl' '$GA_TMP/digit/samples.jsonl'"
"$GA_BIN" verify "$GA_TMP/digit" --unsigned >"$GA_TMP/v1.log" 2>&1
check "verify after one digit changed: exit 2" [ $? -eq 2 ]
check "  naming samples.jsonl" grep -q "TAMPERED: samples.jsonl" "$GA_TMP/v1.log"

cp -r "$run" "$GA_TMP/verdict"
jq -c '.verdicts[0].status = (if .verdicts[0].status == "pass" then "fail" else "pass" end)' "$run/report.json" \
  >"$GA_TMP/verdict/report.json"
sum=$(sha256sum "$GA_TMP/verdict/report.json" | cut -d' ' -f1)
jq --arg s "$sum" '.files["report.json"] = $s' "$run/manifest.json" >"$GA_TMP/verdict/manifest.json"
"$GA_BIN" verify "$GA_TMP/verdict" --unsigned >"$GA_TMP/v2.log" 2>&1
check "an edited verdict with the manifest updated to match: still exit 2" [ $? -eq 2 ]
check "  report.json differs from what the samples give" grep -q "TAMPERED: report.json: differs from what samples.jsonl gives" "$GA_TMP/v2.log"

cd "$GA_TMP" || exit 1
"$GA_BIN" keygen --out "$GA_TMP/me" >/dev/null && "$GA_BIN" keygen --out "$GA_TMP/other" >/dev/null
check "keygen: the private key is mode 0600" [ "$(stat -c %a "$GA_TMP/me.key")" = 600 ]
"$GA_BIN" keygen --out "$GA_TMP/me" >/dev/null 2>&1
check "keygen never overwrites a key: exit 2" [ $? -eq 2 ]
"$GA_BIN" sign "$run" --key "$GA_TMP/me.key" >/dev/null
check "sign wrote signature.dsse.json" test -s "$run/signature.dsse.json"
"$GA_BIN" verify "$run" --pubkey "$GA_TMP/me.pub" >"$GA_TMP/v3.log" 2>&1; v=$?
check "verify --pubkey with the signer's key: exit $rc ($v)" [ "$v" -eq "$rc" ]
check "  names the signer's fingerprint" grep -q "signed by SHA256:" "$GA_TMP/v3.log"
"$GA_BIN" verify "$run" --unsigned >"$GA_TMP/v3u.log" 2>&1
check "verify --unsigned of a signed run names the key it claims, unchecked" \
  grep -q "signature.dsse.json present, claiming key SHA256:[0-9a-f]*, not checked" "$GA_TMP/v3u.log"
"$GA_BIN" verify "$run" --pubkey "$GA_TMP/other.pub" >"$GA_TMP/v4.log" 2>&1
check "verify --pubkey with another key: exit 2" [ $? -eq 2 ]
env="$run/signature.dsse.json"
type=$(jq -r .payloadType "$env")
jq -r .payload "$env" | base64 -d >"$GA_TMP/body.json"
jq -r '.signatures[0].sig' "$env" | base64 -d >"$GA_TMP/sig.bin"
{ printf 'DSSEv1 %d %s %d ' "${#type}" "$type" "$(stat -c %s "$GA_TMP/body.json")"; cat "$GA_TMP/body.json"; } >"$GA_TMP/pae.bin"
check "openssl verifies the envelope with the .pub" \
  openssl pkeyutl -verify -pubin -inkey "$GA_TMP/me.pub" -rawin -in "$GA_TMP/pae.bin" -sigfile "$GA_TMP/sig.bin"
check "... and not with another key" bash -c "! openssl pkeyutl -verify -pubin -inkey '$GA_TMP/other.pub' -rawin -in '$GA_TMP/pae.bin' -sigfile '$GA_TMP/sig.bin' >/dev/null 2>&1"
check "sha256sum checks every signed subject" \
  bash -c "cd '$run' && jq -r '.subject[] | \"\(.digest.sha256)  \(.name)\"' '$GA_TMP/body.json' | sha256sum -c --quiet"

before=$(sha256sum "$run"/report.* "$run/manifest.json")
"$GA_BIN" judge "$run" >/dev/null 2>&1
check "judge with the recorded criteria rewrites the reports byte for byte" \
  test "$(sha256sum "$run"/report.* "$run/manifest.json")" = "$before"
"$GA_BIN" verify "$run" --pubkey "$GA_TMP/me.pub" >/dev/null 2>&1
check "  and the signature still verifies" [ $? -eq "$rc" ]
"$GA_BIN" list --criteria >"$GA_TMP/contract.yaml"
"$GA_BIN" judge "$run" --criteria "$GA_TMP/contract.yaml" >"$GA_TMP/j.log" 2>&1
check "judge --criteria without --out: exit 2, DIR left alone" \
  bash -c "[ $? -eq 2 ] && grep -q -- '--out NEW' '$GA_TMP/j.log' && [ \"\$(sha256sum '$run'/report.* '$run/manifest.json')\" = \"\$0\" ]" "$before"
"$GA_BIN" judge "$run" --criteria "$GA_TMP/contract.yaml" --out "$GA_TMP/rejudged" >/dev/null 2>&1
check "judge --criteria --out NEW writes there" test -s "$GA_TMP/rejudged/report.json"
"$GA_BIN" verify "$run" --criteria "$GA_TMP/contract.yaml" --pubkey "$GA_TMP/me.pub" >"$GA_TMP/v5.log" 2>&1; v=$?
check "verify --criteria CONTRACT judges the samples again: exit 0 or 1 ($v)" bash -c "[ $v -eq 0 ] || [ $v -eq 1 ]"
# report.html's clock-offset plot (issue 14 item 3): drawn for the one host here, each mark's
# data-place and data-value what report.json's clock.offset says there.
ga_mpirun 2 --suite clock --out "$GA_TMP/clock" >/dev/null 2>&1
html="$GA_TMP/clock/report.html"
check "report.html has <svg data-plot=\"clock-offset\">" grep -q '<svg data-plot="clock-offset"' "$html"
marks=$(grep -o '<g class="mark[^>]*data-place="[^"]*" data-value="[^"]*"' "$html" | sed -E 's/.*data-place="([^"]*)" data-value="([^"]*)"/\1 \2/')
check "one mark per host with a clock.offset ($marks)" \
  test "$(wc -l <<<"$marks")" = "$(jq '[.metrics[] | select(.metric=="clock.offset")] | length' "$GA_TMP/clock/report.json")"
while read -r place value; do
  want=$(jq -r --arg p "$place" '.metrics[] | select(.metric=="clock.offset" and .place==$p) | .value' "$GA_TMP/clock/report.json")
  check "  the mark at $place is report.json's value ($value = $want)" awk -v a="$value" -v b="$want" 'BEGIN { exit !(a + 0 == b + 0 && b != "") }'
done <<<"$marks"
check "report.html fetches nothing (no http(s) src, href or url)" \
  bash -c "! grep -Eq '(src|href)=\"https?://|url\\(https?:|@import' '$html'"

# The collective-bandwidth plot: every out-of-place mpi-coll.busbw line is a mark with its value.
cat >"$GA_TMP/mc.yaml" <<'YAML'
schema_version: 1
name: mc-small
description: mpi-coll, small lines, for the collective-bandwidth plot
probes:
  - name: mpi-coll
    params: {max_bytes: 65536, max_iters: 2}
YAML
ga_mpirun 2 --suite "$GA_TMP/mc.yaml" --out "$GA_TMP/mc" >/dev/null 2>&1
html="$GA_TMP/mc/report.html"
check "report.html has <svg data-plot=\"collective-bandwidth\" data-probe=\"mpi-coll\">" \
  grep -q '<svg data-plot="collective-bandwidth" data-probe="mpi-coll"' "$html"
grep -o '<circle class="mark"[^>]*>' "$html" |
  sed -E 's/.*data-collective="([^"]*)" data-size="([^"]*)" data-value="([^"]*)".*/\1 \2 \3/' | sort >"$GA_TMP/marks.txt"
jq -r '.metrics[] | select(.metric=="mpi-coll.busbw" and .params.in_place==false) | "\(.params.collective) \(.params.size) \(.value)"' \
  "$GA_TMP/mc/report.json" | sort >"$GA_TMP/want.txt"
check "one mark per out-of-place line ($(wc -l <"$GA_TMP/marks.txt") marks, $(wc -l <"$GA_TMP/want.txt") lines)" \
  test "$(wc -l <"$GA_TMP/marks.txt")" -eq "$(wc -l <"$GA_TMP/want.txt")" -a -s "$GA_TMP/want.txt"
check "each mark is report.json's line, size and value" \
  bash -c "join -j1 <(awk '{print \$1\"/\"\$2+0, \$3+0}' '$GA_TMP/marks.txt' | sort) <(awk '{print \$1\"/\"\$2+0, \$3+0}' '$GA_TMP/want.txt' | sort) | awk '\$2 != \$3 {bad=1} END {exit bad}' && [ \$(join -j1 <(awk '{print \$1\"/\"\$2+0}' '$GA_TMP/marks.txt' | sort) <(awk '{print \$1\"/\"\$2+0}' '$GA_TMP/want.txt' | sort) | wc -l) -eq \$(wc -l <'$GA_TMP/want.txt') ]"

# --report chooses the writers; md:out=- prints the Markdown to stdout (the summary to stderr).
ga_mpirun 2 --suite quick --out "$GA_TMP/some" --report json,md:out=- >"$GA_TMP/some.out" 2>"$GA_TMP/some.err"; rc2=$?
check "--report json,md:out=-: report.json, bad-hosts.txt and the manifest only ($(ls "$GA_TMP/some" | tr '\n' ' '))" \
  test "$(ls "$GA_TMP/some" | tr '\n' ' ')" = "bad-hosts.txt manifest.json report.json samples.jsonl "
check "  the Markdown report on stdout" bash -c "head -1 '$GA_TMP/some.out' | grep -q '^# gpuaccept: '"
check "  the summary on stderr" grep -q "^gpuaccept: .* pass, " "$GA_TMP/some.err"
"$GA_BIN" verify "$GA_TMP/some" --unsigned >/dev/null 2>&1
check "  and it verifies (exit $rc2)" [ $? -eq "$rc2" ]
"$GA_BIN" run --report pdf >"$GA_TMP/pdf.err" 2>&1
check "--report pdf: exit 2 naming the format" bash -c "[ $? -eq 2 ] && grep -q 'unknown format \"pdf\"' '$GA_TMP/pdf.err'"
finish
