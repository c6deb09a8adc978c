/// The Kubernetes manifests of `flowmatrix ci kubernetes|kubernetes-fleet` (docs/SCALE-OUT.md).
extension EngineFiles {
    // MARK: - Kubernetes

    /// `text` with every line indented by `spaces` (a YAML block nested at that depth).
    static func block(_ text: String, _ spaces: Int) -> String {
        let pad = String(repeating: " ", count: spaces)
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { pad + $0 }.joined(separator: "\n")
    }

    /// The labels that select a FlowMatrix component's pods.
    static func labels(_ component: String) -> String {
        "app.kubernetes.io/name: flowmatrix\napp.kubernetes.io/component: \(component)"
    }

    /// An object's `metadata`: name, namespace and the labels of `component`.
    static func metadata(_ name: String, _ s: Settings, component: String) -> String {
        "metadata:\n  name: \(name)\n  namespace: \(s.namespace)\n  labels:\n" + block(labels(component), 4)
    }

    /// A container running `script` with `/bin/sh -c` (the scripts use the shell's `$VAR` and exit codes).
    static func shellContainer(_ name: String, image: String, script: String) -> String {
        "- name: \(name)\n  image: \(quoted(image))\n  command:\n    - /bin/sh\n    - -c\n    - \(quoted(script))"
    }

    /// A pod's mount of volume `name` at `path`, and the volume `name` on claim `claim`.
    static func mount(_ name: String, at path: String) -> String { "- name: \(name)\n  mountPath: \(path)" }
    static func volume(_ name: String, claim: String) -> String {
        "- name: \(name)\n  persistentVolumeClaim:\n    claimName: \(claim)"
    }

    /// The fleet coordinator's store: the `flowmatrix-results` claim mounted at `/results`.
    static let resultsMount = mount("results", at: "/results")
    static let resultsVolume = volume("results", claim: "flowmatrix-results")

    /// A `ReadWriteOnce` claim of 10 GiB (every cluster's default access mode: one node mounts it at a time).
    static func claim(_ name: String, _ s: Settings, component: String) -> String {
        """
        apiVersion: v1
        kind: PersistentVolumeClaim
        \(metadata(name, s, component: component))
        spec:
          accessModes:
            - ReadWriteOnce
          resources:
            requests:
              storage: 10Gi
        """
    }

    /// A Job whose one pod runs `container` with `volumes` and `affinity` (YAML at the pod spec's depth, or "").
    static func job(_ name: String, _ s: Settings, component: String, backoffLimit: Int, container: String,
                    mounts: [String], volumes: [String], affinity: String = "") -> String {
        """
        apiVersion: batch/v1
        kind: Job
        \(metadata(name, s, component: component))
        spec:
          backoffLimit: \(backoffLimit)
          activeDeadlineSeconds: 86400
          template:
            metadata:
              labels:
        \(block(labels(component), 8))
            spec:
              restartPolicy: Never\(affinity.isEmpty ? "" : "\n" + block(affinity, 6))
              containers:
        \(block(container, 8))
                  volumeMounts:
        \(block(mounts.joined(separator: "\n"), 12))
              volumes:
        \(block(volumes.joined(separator: "\n"), 8))
        """
    }

    /// Shard pods run in one zone (a zonal volume can only be attached in its zone, and the merge pod attaches
    /// them all); within it they spread over nodes as the scheduler likes.
    static let shardAffinity = """
        affinity:
          podAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              - topologyKey: topology.kubernetes.io/zone
                labelSelector:
                  matchLabels:
        \(block(labels("shard"), 12))
        """

    /// ReadWriteOnce storage only: per shard a claim and a Job (`--shard i/N`, its store on its own volume; a shard
    /// pod exits 0 when its jobs ran, failures or not); then (applied once the shard Jobs are complete: their
    /// volumes are free to attach to one node) a report claim and a merge Job mounting every shard claim, which
    /// merges into `/report/merged` and writes the verdict there; and a `flowmatrix-fetch` pod that mounts the report
    /// claim for `kubectl cp`. Labels `component=shard|merge|fetch` select each stage for `kubectl apply -l`.
    static func kubernetes(_ s: Settings, command: String) -> String {
        let image = s.image ?? "flowmatrix:latest"
        var objects: [String] = []
        for i in 1...s.shards {
            let run = "flowmatrix run \(shellQuoted(s.matrix)) --shard \(i)/\(s.shards) --store /results/store"
                + durationsFlag(s) + "; code=$?; if [ \"$code\" -le 1 ]; then exit 0; fi; exit \"$code\""
            objects.append(claim("flowmatrix-shard-\(i)", s, component: "shard"))
            objects.append(job("flowmatrix-shard-\(i)", s, component: "shard", backoffLimit: 2,
                               container: shellContainer("shard", image: image, script: run),
                               mounts: [mount("results", at: "/results")],
                               volumes: [volume("results", claim: "flowmatrix-shard-\(i)")], affinity: shardAffinity))
        }
        let merge = "flowmatrix merge /shards/*/store --store /report/merged; code=$?; if [ \"$code\" -le 1 ]; then "
            + "echo \"$code\" > /report/merged/verdict; echo \"verdict: $code (0 all passed, 1 jobs failed)\"; exit 0; fi; "
            + "exit \"$code\""
        let shards = (1...s.shards).map { i in (mount("shard-\(i)", at: "/shards/\(i)"),
                                                volume("shard-\(i)", claim: "flowmatrix-shard-\(i)")) }
        objects.append(claim("flowmatrix-report", s, component: "merge"))
        objects.append(job("flowmatrix-merge", s, component: "merge", backoffLimit: 0,
                           container: shellContainer("merge", image: image, script: merge),
                           mounts: shards.map(\.0) + [mount("report", at: "/report")],
                           volumes: shards.map(\.1) + [volume("report", claim: "flowmatrix-report")]))
        objects.append(fetchPod(s, image: image))
        return header(command, sharded: false) + """
            # One image with flowmatrix on PATH and the repository (matrix + corpus) in its working directory.
            # ReadWriteOnce volumes only. Apply in three stages (docs/SCALE-OUT.md):
            #   kubectl apply -f FILE -l app.kubernetes.io/component=shard
            #   kubectl wait --for=condition=complete --timeout=24h job -l app.kubernetes.io/component=shard
            #   kubectl apply -f FILE -l app.kubernetes.io/component=merge
            #   kubectl wait --for=condition=complete --timeout=1h job/flowmatrix-merge
            #   kubectl apply -f FILE -l app.kubernetes.io/component=fetch
            #   kubectl wait --for=condition=Ready pod/flowmatrix-fetch
            #   kubectl cp flowmatrix-fetch:/report/merged/runs flowmatrix-report   # the report
            #   kubectl exec flowmatrix-fetch -- cat /report/merged/verdict         # 0 all passed, 1 jobs failed

            """ + objects.joined(separator: "\n---\n") + "\n"
    }

    /// A pod that mounts the report claim (after the merge Job) and waits an hour, for `kubectl cp` to read.
    static func fetchPod(_ s: Settings, image: String) -> String {
        """
        apiVersion: v1
        kind: Pod
        \(metadata("flowmatrix-fetch", s, component: "fetch"))
        spec:
          restartPolicy: Never
          activeDeadlineSeconds: 3600
          containers:
        \(block(shellContainer("fetch", image: image, script: "exec sleep 3600"), 4))
              volumeMounts:
                - name: report
                  mountPath: /report
                  readOnly: true
          volumes:
        \(block(volume("report", claim: "flowmatrix-report"), 4))
        """
    }

    /// Fleet mode: the token in a Secret, the coordinator (`serve`) as a Job behind a Service, and workers as a
    /// Deployment that reach it by the Service's address.
    static func kubernetesFleet(_ s: Settings, token: String, command: String) -> String {
        let image = s.image ?? "flowmatrix:latest"
        let serve = "exec flowmatrix serve \(shellQuoted(s.matrix)) --listen 0.0.0.0:7700 "
            + "--token-file /etc/flowmatrix/token --store /results/fleet"
        // `worker --connect` takes a numeric address: the Service's cluster IP, which Kubernetes passes to pods
        // created after the Service as FLOWMATRIX_COORDINATOR_SERVICE_HOST.
        let worker = "exec flowmatrix worker --connect \"$FLOWMATRIX_COORDINATOR_SERVICE_HOST:7700\" --slots \(s.slots)"
        return header(command, sharded: false) + """
            apiVersion: v1
            kind: Secret
            \(metadata("flowmatrix-token", s, component: "token"))
            type: Opaque
            stringData:
              token: \(quoted(token))
            ---
            apiVersion: v1
            kind: Service
            \(metadata("flowmatrix-coordinator", s, component: "coordinator"))
            spec:
              selector:
            \(block(labels("coordinator"), 4))
              ports:
                - name: flowmatrix
                  port: 7700
                  targetPort: 7700
                  protocol: TCP
            ---
            \(claim("flowmatrix-results", s, component: "results"))
            ---
            apiVersion: batch/v1
            kind: Job
            \(metadata("flowmatrix-coordinator", s, component: "coordinator"))
            spec:
              backoffLimit: 0
              template:
                metadata:
                  labels:
            \(block(labels("coordinator"), 8))
                spec:
                  restartPolicy: Never
                  containers:
            \(block(shellContainer("coordinator", image: image, script: serve), 8))
                      ports:
                        - containerPort: 7700
                          name: flowmatrix
                      volumeMounts:
                        - name: token
                          mountPath: /etc/flowmatrix
                          readOnly: true
            \(block(resultsMount, 12))
                  volumes:
                    - name: token
                      secret:
                        secretName: flowmatrix-token
            \(block(resultsVolume, 8))
            ---
            apiVersion: apps/v1
            kind: Deployment
            \(metadata("flowmatrix-workers", s, component: "worker"))
            spec:
              replicas: \(s.workers)
              selector:
                matchLabels:
            \(block(labels("worker"), 6))
              template:
                metadata:
                  labels:
            \(block(labels("worker"), 8))
                spec:
                  containers:
            \(block(shellContainer("worker", image: image, script: worker), 8))
                      env:
                        - name: FLOWMATRIX_TOKEN
                          valueFrom:
                            secretKeyRef:
                              name: flowmatrix-token
                              key: token

            """
    }
}
