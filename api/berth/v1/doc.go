// Package berthv1 is the Go code generated from the berth.v1 protobuf API
// (the *.proto files beside it): the message types and the gRPC clients and
// servers of StateService, DecisionService and AdminService.
//
// Do not edit the *.pb.go files; change the .proto files and run
// api/generate.sh. The protos are the documentation: start with
// state_service.proto and decision_service.proto, and see api/README.md.
package berthv1
