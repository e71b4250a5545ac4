{{/* Names and labels, as every chart writes them. */}}
{{- define "svc.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "svc.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: {{ include "svc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "svc.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "svc.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
The sharded StatefulSet's name: Kubernetes labels each of its pods controller-revision-hash=<name>-<hash of
up to 10 characters>, a label value of at most 63 characters, so a longer name gets no pod ever.
*/}}
{{- define "svc.statefulset" -}}
{{- include "svc.fullname" . | trunc 52 | trimSuffix "-" }}
{{- end }}

{{/* The headless service that names the pods of the sharded StatefulSet. */}}
{{- define "svc.headless" -}}
{{- printf "%s-headless" (include "svc.fullname" . | trunc 54) }}
{{- end }}

{{/* Settings that cannot go together, refused at render time with the fix. */}}
{{- define "svc.validate" -}}
{{- if and .Values.shard.enabled .Values.autoscaling.enabled }}
{{- fail "shard.enabled and autoscaling.enabled cannot go together: each shard's share is fixed by replicaCount; turn one off" }}
{{- end }}
{{- if and .Values.server.state.enabled (not .Values.shard.enabled) (or .Values.autoscaling.enabled (gt (int .Values.replicaCount) 1)) }}
{{- fail "server.state.enabled keeps one server's scenarios: with more than one pod of the Deployment each would start them all again; use replicaCount 1, or shard.enabled (one claim per pod)" }}
{{- end }}
{{- if and .Values.server.state.enabled .Values.shard.enabled .Values.server.state.existingClaim }}
{{- fail "server.state.existingClaim: in shard mode each pod claims its own volume; leave it empty" }}
{{- end }}
{{- /* The whole value: 127.example.com is a host name, not a loopback address. */}}
{{- if regexMatch "(?i)^(127(\\.[0-9]+){3}|localhost(\\.localdomain)?|(0+:){7}0*1|::1|::ffff:127(\\.[0-9]+){3})$" (toString .Values.server.bind) }}
{{- fail (printf "server.bind %s is reachable only from inside the pod: the kubelet's probes and the Service connect to the pod's IP, so the pod would never be ready and be restarted; use 0.0.0.0 (or :: for IPv6), and an API key" .Values.server.bind) }}
{{- end }}
{{- with .Values.serviceMonitor }}
{{- if and .enabled (gt (include "svc.durationMs" .scrapeTimeout | int64) (include "svc.durationMs" .interval | int64)) }}
{{- fail (printf "serviceMonitor.scrapeTimeout %s is longer than serviceMonitor.interval %s: the Prometheus Operator skips such a ServiceMonitor and nothing is scraped; make it at most the interval" .scrapeTimeout .interval) }}
{{- end }}
{{- end }}
{{- if and .Values.server.autostart (not .Values.scenarios) }}
{{- fail "server.autostart names catalog scenarios: put their files in scenarios" }}
{{- end }}
{{- $own := dict "SVC_LOG_LEVEL" "server.logLevel" "SVC_API_KEY" "server.apiKey.existingSecret" "SVC_SHARD" "shard.enabled" "SVC_POD_INDEX" "shard.enabled" "SVC_CATALOG" "scenarios" "SVC_AUTOSTART" "server.autostart" "SVC_FILE_ROOT" "server.fileRoot" "SVC_STATE_DIR" "server.state" "SVC_BIND" "server.bind" "SVC_MAX_ENTRIES" "server.maxEntries" }}
{{- range $env := .Values.server.extraEnv }}
{{- with get $own $env.name }}
{{- fail (printf "server.extraEnv: %s is the chart's to set, from %s: set that value instead" $env.name .) }}
{{- end }}
{{- /* NODE_OPTIONS carries every Node option: the chart's only while server.heapMiB puts the heap limit in it. */}}
{{- if and $.Values.server.heapMiB (eq $env.name "NODE_OPTIONS") }}
{{- fail "server.extraEnv: NODE_OPTIONS is the chart's to set while server.heapMiB is set: set server.heapMiB to 0 and add --max-old-space-size=N to your NODE_OPTIONS, or leave NODE_OPTIONS out" }}
{{- end }}
{{- end }}
{{- end }}

{{/* A Prometheus duration as values.schema.json allows it (1m30s, 500ms), in milliseconds: durations compare as numbers. */}}
{{- define "svc.durationMs" -}}
{{- $unitMs := dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000 }}
{{- $total := 0 }}
{{- range regexFindAll "[0-9]+(ms|s|m|h)" . -1 }}
{{- $number := regexFind "^[0-9]+" . }}
{{- /* atoi reads base 10; int64 would read a leading 0 as octal (010s as 8 s, 090s as 0). */}}
{{- $total = add $total (mul ($number | atoi) (get $unitMs (trimPrefix $number .))) }}
{{- end }}
{{- $total }}
{{- end }}

{{/*
A PodDisruptionBudget count (2) or percentage ("50%") of (list value pods), in hundredths of a pod:
Kubernetes rounds a percentage up, so it keeps ceil(hundredths/100) pods. Hundredths need no rounding.
*/}}
{{- define "svc.podHundredths" -}}
{{- $value := index . 0 }}
{{- if hasSuffix "%" (toString $value) }}
{{- mul (toString $value | trimSuffix "%" | atoi) (index . 1) }}
{{- else }}
{{- mul (int $value) 100 }}
{{- end }}
{{- end }}

{{/*
The pod template of the Deployment and of the sharded StatefulSet. The checksum of the rendered
scenarios ConfigMap rolls the pods when scenarios change.
*/}}
{{- define "svc.podTemplate" -}}
metadata:
  annotations:
    checksum/scenarios: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
  labels:
    {{- include "svc.selectorLabels" . | nindent 4 }}
spec:
  {{- with .Values.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  securityContext:
    {{- toYaml .Values.podSecurityContext | nindent 4 }}
  containers:
    - name: svc
      image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
      imagePullPolicy: {{ .Values.image.pullPolicy }}
      securityContext:
        {{- toYaml .Values.securityContext | nindent 8 }}
      command: ["svc-server"]
      args:
        - --port
        - {{ .Values.server.port | quote }}
        - --bind
        - {{ .Values.server.bind | quote }}
        - --max-entries
        - {{ .Values.server.maxEntries | int64 | quote }}
        {{- if .Values.scenarios }}
        - --catalog
        - /scenarios
        {{- end }}
        {{- with .Values.server.autostart }}
        - --autostart
        - {{ include "svc.autostart" . | quote }}
        {{- end }}
        {{- if .Values.server.fileRoot.enabled }}
        - --file-root
        - {{ .Values.server.fileRoot.path | quote }}
        {{- end }}
        {{- if .Values.server.state.enabled }}
        - --state
        - {{ .Values.server.state.path | quote }}
        {{- end }}
      env:
        - name: SVC_LOG_LEVEL
          value: {{ .Values.server.logLevel | quote }}
        {{- with .Values.server.heapMiB }}
        - name: NODE_OPTIONS
          value: "--max-old-space-size={{ . }}"
        {{- end }}
        {{- with .Values.server.apiKey.existingSecret }}
        - name: SVC_API_KEY
          valueFrom:
            secretKeyRef:
              name: {{ . | quote }}
              key: {{ required "server.apiKey.secretKey: name the key of the Secret that holds the API key" $.Values.server.apiKey.secretKey | quote }}
        {{- end }}
        {{- if .Values.shard.enabled }}
        # The pod's ordinal in its StatefulSet (label set by Kubernetes 1.28 and later).
        - name: SVC_POD_INDEX
          valueFrom:
            fieldRef:
              fieldPath: metadata.labels['apps.kubernetes.io/pod-index']
        - name: SVC_SHARD
          value: "$(SVC_POD_INDEX)/{{ .Values.replicaCount }}"
        {{- end }}
        {{- with .Values.server.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      ports:
        - name: http
          containerPort: {{ .Values.server.port }}
          protocol: TCP
      livenessProbe:
        httpGet:
          path: /health
          port: http
        initialDelaySeconds: 5
        periodSeconds: 10
        timeoutSeconds: 3
        failureThreshold: 3
      # 503 once the server drains on SIGTERM: traffic stops before the scenarios flush.
      readinessProbe:
        httpGet:
          path: /health?ready
          port: http
        initialDelaySeconds: 2
        periodSeconds: 5
        timeoutSeconds: 3
        failureThreshold: 3
      resources:
        {{- toYaml .Values.resources | nindent 8 }}
      {{- if or .Values.scenarios .Values.server.fileRoot.enabled .Values.server.state.enabled }}
      volumeMounts:
        {{- if .Values.scenarios }}
        - name: scenarios
          mountPath: /scenarios
          readOnly: true
        {{- end }}
        {{- if .Values.server.fileRoot.enabled }}
        - name: file-root
          mountPath: {{ .Values.server.fileRoot.path | quote }}
        {{- end }}
        {{- if .Values.server.state.enabled }}
        - name: state
          mountPath: {{ .Values.server.state.path | quote }}
        {{- end }}
      {{- end }}
  {{- $stateVolume := and .Values.server.state.enabled (not .Values.shard.enabled) }}
  {{- if or .Values.scenarios .Values.server.fileRoot.enabled $stateVolume }}
  volumes:
    {{- if .Values.scenarios }}
    - name: scenarios
      configMap:
        name: {{ include "svc.fullname" . }}-scenarios
    {{- end }}
    {{- if .Values.server.fileRoot.enabled }}
    - name: file-root
      {{- with .Values.server.fileRoot.volume }}
      {{- toYaml . | nindent 6 }}
      {{- else }}
      emptyDir: {}
      {{- end }}
    {{- end }}
    {{- if $stateVolume }}
    - name: state
      persistentVolumeClaim:
        claimName: {{ include "svc.stateClaim" . | quote }}
    {{- end }}
  {{- end }}
  {{- with .Values.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with .Values.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}

{{/* server.autostart as --autostart takes it: @a,@b (a leading @ in values is optional). */}}
{{- define "svc.autostart" -}}
{{- $refs := list }}
{{- range . }}
{{- $refs = append $refs (printf "@%s" (trimPrefix "@" .)) }}
{{- end }}
{{- join "," $refs }}
{{- end }}

{{/* The claim of the Deployment's state volume: the user's, or the one pvc.yaml makes. */}}
{{- define "svc.stateClaim" -}}
{{- .Values.server.state.existingClaim | default (printf "%s-state" (include "svc.fullname" .)) }}
{{- end }}

{{/* The spec of a claim for the state volume (pvc.yaml, and the StatefulSet's volumeClaimTemplates). */}}
{{- define "svc.stateClaimSpec" -}}
accessModes:
  {{- toYaml .Values.server.state.accessModes | nindent 2 }}
{{- with .Values.server.state.storageClassName }}
storageClassName: {{ . | quote }}
{{- end }}
resources:
  requests:
    storage: {{ .Values.server.state.size | quote }}
{{- end }}
