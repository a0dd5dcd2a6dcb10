import protobuf from 'protobufjs';

/*
 * The subset of the OTLP protobuf schema (opentelemetry-proto v1.x: common, resource, trace, metrics and the
 * two collector services) that the dashboard decodes, plus google.rpc.Status for error bodies. Field numbers
 * are the public ones of the specification; fields the dashboard never reads (links, exemplars, dropped
 * counts...) are declared anyway where cheap, and unknown fields are skipped by the decoder, as the spec
 * requires. Checked against the bytes of the real SDK serializers in test/otlp-decode.test.ts.
 */
const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id });
const field = (type: string, id: number) => ({ type, id });

const descriptor = {
  nested: {
    otlp: {
      nested: {
        AnyValue: {
          oneofs: {
            value: {
              oneof: [
                'stringValue',
                'boolValue',
                'intValue',
                'doubleValue',
                'arrayValue',
                'kvlistValue',
                'bytesValue',
              ],
            },
          },
          fields: {
            stringValue: field('string', 1),
            boolValue: field('bool', 2),
            intValue: field('int64', 3),
            doubleValue: field('double', 4),
            arrayValue: field('ArrayValue', 5),
            kvlistValue: field('KeyValueList', 6),
            bytesValue: field('bytes', 7),
          },
        },
        ArrayValue: { fields: { values: repeated('AnyValue', 1) } },
        KeyValueList: { fields: { values: repeated('KeyValue', 1) } },
        KeyValue: { fields: { key: field('string', 1), value: field('AnyValue', 2) } },
        InstrumentationScope: {
          fields: {
            name: field('string', 1),
            version: field('string', 2),
            attributes: repeated('KeyValue', 3),
            droppedAttributesCount: field('uint32', 4),
          },
        },
        Resource: {
          fields: { attributes: repeated('KeyValue', 1), droppedAttributesCount: field('uint32', 2) },
        },
        // ---- traces ----
        ExportTraceServiceRequest: { fields: { resourceSpans: repeated('ResourceSpans', 1) } },
        ResourceSpans: {
          fields: {
            resource: field('Resource', 1),
            scopeSpans: repeated('ScopeSpans', 2),
            schemaUrl: field('string', 3),
          },
        },
        ScopeSpans: {
          fields: {
            scope: field('InstrumentationScope', 1),
            spans: repeated('Span', 2),
            schemaUrl: field('string', 3),
          },
        },
        Span: {
          fields: {
            traceId: field('bytes', 1),
            spanId: field('bytes', 2),
            traceState: field('string', 3),
            parentSpanId: field('bytes', 4),
            flags: field('fixed32', 16),
            name: field('string', 5),
            kind: field('int32', 6),
            startTimeUnixNano: field('fixed64', 7),
            endTimeUnixNano: field('fixed64', 8),
            attributes: repeated('KeyValue', 9),
            droppedAttributesCount: field('uint32', 10),
            events: repeated('SpanEvent', 11),
            droppedEventsCount: field('uint32', 12),
            droppedLinksCount: field('uint32', 14),
            status: field('Status', 15),
          },
        },
        SpanEvent: {
          fields: {
            timeUnixNano: field('fixed64', 1),
            name: field('string', 2),
            attributes: repeated('KeyValue', 3),
            droppedAttributesCount: field('uint32', 4),
          },
        },
        Status: { fields: { message: field('string', 2), code: field('int32', 3) } },
        ExportTraceServiceResponse: { fields: { partialSuccess: field('ExportTracePartialSuccess', 1) } },
        ExportTracePartialSuccess: {
          fields: { rejectedSpans: field('int64', 1), errorMessage: field('string', 2) },
        },
        // ---- metrics ----
        ExportMetricsServiceRequest: { fields: { resourceMetrics: repeated('ResourceMetrics', 1) } },
        ResourceMetrics: {
          fields: {
            resource: field('Resource', 1),
            scopeMetrics: repeated('ScopeMetrics', 2),
            schemaUrl: field('string', 3),
          },
        },
        ScopeMetrics: {
          fields: {
            scope: field('InstrumentationScope', 1),
            metrics: repeated('Metric', 2),
            schemaUrl: field('string', 3),
          },
        },
        Metric: {
          oneofs: { data: { oneof: ['gauge', 'sum', 'histogram', 'exponentialHistogram', 'summary'] } },
          fields: {
            name: field('string', 1),
            description: field('string', 2),
            unit: field('string', 3),
            gauge: field('Gauge', 5),
            sum: field('Sum', 7),
            histogram: field('Histogram', 9),
            exponentialHistogram: field('ExponentialHistogram', 10),
            summary: field('Summary', 11),
          },
        },
        Gauge: { fields: { dataPoints: repeated('NumberDataPoint', 1) } },
        Sum: {
          fields: {
            dataPoints: repeated('NumberDataPoint', 1),
            aggregationTemporality: field('int32', 2),
            isMonotonic: field('bool', 3),
          },
        },
        Histogram: {
          fields: {
            dataPoints: repeated('HistogramDataPoint', 1),
            aggregationTemporality: field('int32', 2),
          },
        },
        ExponentialHistogram: {
          fields: { dataPoints: repeated('OpaquePoint', 1), aggregationTemporality: field('int32', 2) },
        },
        Summary: { fields: { dataPoints: repeated('OpaquePoint', 1) } },
        /** Exponential-histogram and summary points are counted (and rejected), never read. */
        OpaquePoint: { fields: {} },
        NumberDataPoint: {
          oneofs: { value: { oneof: ['asDouble', 'asInt'] } },
          fields: {
            attributes: repeated('KeyValue', 7),
            startTimeUnixNano: field('fixed64', 2),
            timeUnixNano: field('fixed64', 3),
            asDouble: field('double', 4),
            asInt: field('sfixed64', 6),
            flags: field('uint32', 8),
          },
        },
        HistogramDataPoint: {
          fields: {
            attributes: repeated('KeyValue', 9),
            startTimeUnixNano: field('fixed64', 2),
            timeUnixNano: field('fixed64', 3),
            count: field('fixed64', 4),
            sum: field('double', 5),
            bucketCounts: repeated('fixed64', 6),
            explicitBounds: repeated('double', 7),
            flags: field('uint32', 10),
            min: field('double', 11),
            max: field('double', 12),
          },
        },
        ExportMetricsServiceResponse: { fields: { partialSuccess: field('ExportMetricsPartialSuccess', 1) } },
        ExportMetricsPartialSuccess: {
          fields: { rejectedDataPoints: field('int64', 1), errorMessage: field('string', 2) },
        },
        // ---- google.rpc.Status (error bodies) ----
        RpcStatus: { fields: { code: field('int32', 1), message: field('string', 2) } },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(descriptor);

export const ExportTraceServiceRequest = root.lookupType('otlp.ExportTraceServiceRequest');
export const ExportMetricsServiceRequest = root.lookupType('otlp.ExportMetricsServiceRequest');
export const ExportTraceServiceResponse = root.lookupType('otlp.ExportTraceServiceResponse');
export const ExportMetricsServiceResponse = root.lookupType('otlp.ExportMetricsServiceResponse');
export const RpcStatus = root.lookupType('otlp.RpcStatus');
